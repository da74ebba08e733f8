import { ATTACHMENT_OBJECT_PREFIX } from '../../platform/storage/objects.ts';
import { NotFoundError } from '../../platform/core/errors.ts';
import type { PageOf } from '../../platform/pagination/page.ts';

/** Attachments (docs/attachments.md): files and links attached to a record of the organization. */

export const ATTACHMENT_TARGET_KINDS = ['item', 'location', 'stock-record', 'bom', 'bom-revision', 'build', 'import-job', 'purchase-order', 'count'] as const;
export type AttachmentTargetKind = (typeof ATTACHMENT_TARGET_KINDS)[number];

export const FILE_KINDS = ['document', 'image', 'drawing', 'certificate', 'datasheet', 'invoice', 'label', 'other'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

/** The largest file an upload takes (docs/attachments.md "Files"); one byte more is a 413. */
export const ATTACHMENT_MAX_BYTES = 4 * 1024 * 1024;
/** How long a download URL works. */
export const DOWNLOAD_URL_TTL_SECONDS = 15 * 60;
export { ATTACHMENT_OBJECT_PREFIX };

export interface Attachment {
  id: string;
  targetKind: AttachmentTargetKind;
  targetId: string;
  kind: 'file' | 'link';
  fileKind: FileKind;
  title: string;
  fileName: string | null;
  contentType: string | null;
  sizeBytes: number | null;
  sha256: string | null;
  pageCount: number | null;
  url: string | null;
  createdAt: string;
  /** The API key that attached it. */
  createdBy: string;
}

/** The record as stored: the attachment and, for a file, the key of its body. */
export interface StoredAttachment {
  attachment: Attachment;
  objectKey: string | null;
}

export function attachmentObjectKey(organizationId: string, attachmentId: string): string {
  return `${ATTACHMENT_OBJECT_PREFIX}${organizationId}/${attachmentId}`;
}

/** The organization and attachment an object key names, or undefined for a key the server did not make. */
export function parseAttachmentObjectKey(key: string): { organizationId: string; attachmentId: string } | undefined {
  const match = /^attachments\/([^/]+)\/(att_[0-9A-Za-z]+)$/.exec(key);
  return match ? { organizationId: match[1] ?? '', attachmentId: match[2] ?? '' } : undefined;
}

export interface AttachmentTarget {
  kind: AttachmentTargetKind;
  id: string;
}

/** Storage of attachment records. */
/** No attachment with the id: never was, another organization's, or deleted (also by a delete that won a race). */
export function attachmentNotFound(): NotFoundError {
  return new NotFoundError('attachments', 'No attachment with this id.');
}

export interface AttachmentStorage<Write = unknown> {
  get(organizationId: string, attachmentId: string): Promise<StoredAttachment | undefined>;
  /** Those of `ids` that have a record (for the orphan sweep). */
  existing(organizationId: string, attachmentIds: string[]): Promise<Set<string>>;
  createWrites(organizationId: string, stored: StoredAttachment): Write[];
  /** Conditioned on the record existing; when another delete committed first, the commit fails with `attachmentNotFound()`. */
  deleteWrites(organizationId: string, stored: StoredAttachment): Write[];
  list(organizationId: string, target: AttachmentTarget | undefined, after: string | undefined, limit: number): Promise<PageOf<Attachment>>;
}

/** The bodies of file attachments. */
export interface AttachmentObjects {
  put(key: string, content: Buffer, contentType: string, sha256: string): Promise<void>;
  delete(key: string): Promise<void>;
  /** A presigned GET that forces a download under `fileName` with `contentType`. */
  downloadUrl(key: string, options: { fileName: string; contentType: string; expiresInSeconds: number }): Promise<string>;
}

/** Whether a target names a record of the organization. */
export interface AttachmentTargets {
  exists(organizationId: string, target: AttachmentTarget): Promise<boolean>;
}
