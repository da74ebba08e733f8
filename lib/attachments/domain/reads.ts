import { ApiError } from '../../platform/core/errors.ts';
import type { CursorBinding, CursorCodec } from '../../platform/pagination/cursor.ts';
import { cursorPage, type ListPage } from '../../platform/pagination/page.ts';
import {
  attachmentNotFound,
  DOWNLOAD_URL_TTL_SECONDS,
  type Attachment,
  type AttachmentObjects,
  type AttachmentStorage,
  type AttachmentTarget,
} from './attachment.ts';

/** Reads of the attachments area (docs/attachments.md): lists and download URLs. */

export interface DownloadUrl {
  url: string;
  expiresAt: string;
  fileName: string;
  contentType: string;
  sizeBytes: number;
}

export class AttachmentReads {
  /** `cursors` is needed only by the list. */
  constructor(
    private readonly ports: { attachments: Pick<AttachmentStorage, 'get' | 'list'>; objects?: Pick<AttachmentObjects, 'downloadUrl'>; clock?: () => Date },
    private readonly cursors?: CursorCodec,
    private readonly downloadTtlSeconds = DOWNLOAD_URL_TTL_SECONDS,
  ) {}

  async list(organizationId: string, target: AttachmentTarget | undefined, query: { limit: number; cursor?: string }): Promise<ListPage<Attachment>> {
    const { cursors } = this;
    if (!cursors) throw new Error('Paging attachments needs a cursor codec');
    const binding: CursorBinding = { organizationId, endpoint: 'GET /v1/attachments', filters: { targetKind: target?.kind, targetId: target?.id } };
    return cursorPage(cursors, binding, query.cursor, (after) => this.ports.attachments.list(organizationId, target, after, query.limit));
  }

  /** A presigned URL for a file; a link has none (409), and a deleted or foreign id mints nothing (404). */
  async downloadUrl(organizationId: string, attachmentId: string): Promise<DownloadUrl> {
    const stored = await this.ports.attachments.get(organizationId, attachmentId);
    if (!stored) throw attachmentNotFound();
    const { attachment, objectKey } = stored;
    if (attachment.kind !== 'file' || !objectKey || !attachment.fileName || !attachment.contentType || attachment.sizeBytes === null) {
      throw new ApiError(409, 'customer-api.attachments.not-downloadable', 'Not downloadable', {
        detail: 'A link attachment has no file to download; open its `url`.',
      });
    }
    const { objects } = this.ports;
    if (!objects) throw new Error('Download URLs need the object store');
    const issuedAt = (this.ports.clock?.() ?? new Date()).getTime();
    const url = await objects.downloadUrl(objectKey, {
      fileName: attachment.fileName,
      contentType: attachment.contentType,
      expiresInSeconds: this.downloadTtlSeconds,
    });
    return {
      url,
      expiresAt: new Date(issuedAt + this.downloadTtlSeconds * 1000).toISOString(),
      fileName: attachment.fileName,
      contentType: attachment.contentType,
      sizeBytes: attachment.sizeBytes,
    };
  }
}
