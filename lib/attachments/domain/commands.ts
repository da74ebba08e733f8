import { createHash } from 'node:crypto';
import { ApiError, ValidationError } from '../../platform/core/errors.ts';
import { newId } from '../../platform/core/ids.ts';
import type { CommandPlan } from '../../platform/write/ports.ts';
import {
  attachmentNotFound,
  attachmentObjectKey,
  type Attachment,
  type AttachmentObjects,
  type AttachmentStorage,
  type AttachmentTarget,
  type AttachmentTargets,
  type FileKind,
  type StoredAttachment,
} from './attachment.ts';
import { safeFileName } from './file-name.ts';
import { linkUrlProblem } from './link-url.ts';

/**
 * Uploading, linking and deleting attachments (docs/attachments.md): the command plans the writer
 * commits with the audit entry and the Idempotency-Key completion in one transaction. A file's
 * body goes to storage before its record commits, under a key only the server makes; a body
 * whose record never committed, or whose record was deleted without it, is an orphan that the
 * sweeper removes (docs/attachments.md "Deleting").
 */

export interface UploadInput {
  target: AttachmentTarget;
  fileKind: FileKind;
  pageCount: number | null;
  file: { fileName: string; content: Buffer };
}

export interface LinkInput {
  target: AttachmentTarget;
  url: string;
  title?: string | undefined;
  fileKind: FileKind;
}

export class AttachmentCommands<Write> {
  constructor(
    private readonly ports: {
      attachments: Pick<AttachmentStorage<Write>, 'get' | 'createWrites' | 'deleteWrites'>;
      objects: Pick<AttachmentObjects, 'put' | 'delete'>;
      targets: AttachmentTargets;
      /** The content type of a body, from its bytes (content-type.ts); only the upload function carries the sniffer. */
      sniff?: (content: Buffer) => Promise<string>;
      clock?: () => Date;
    },
  ) {}

  /** Checks the target, stores the body and returns the plan of its record. */
  async upload(organizationId: string, createdBy: string, input: UploadInput): Promise<CommandPlan<Attachment, Write>> {
    if (input.file.content.length === 0) throw new ValidationError([{ location: 'form', name: 'File', code: 'empty', message: 'The file is empty.' }]);
    await this.requireTarget(organizationId, input.target, 'form');
    const id = newId('att');
    const fileName = safeFileName(input.file.fileName, 'file');
    const { sniff } = this.ports;
    if (!sniff) throw new Error('Uploads need a content sniffer');
    const contentType = await sniff(input.file.content);
    const sha256 = createHash('sha256').update(input.file.content).digest('hex');
    const objectKey = attachmentObjectKey(organizationId, id);
    await this.ports.objects.put(objectKey, input.file.content, contentType, sha256);
    const attachment: Attachment = {
      id,
      targetKind: input.target.kind,
      targetId: input.target.id,
      kind: 'file',
      fileKind: input.fileKind,
      title: fileName,
      fileName,
      contentType,
      sizeBytes: input.file.content.length,
      sha256,
      pageCount: input.pageCount,
      url: null,
      createdAt: this.now(),
      createdBy,
    };
    return this.createPlan(
      organizationId,
      { attachment, objectKey },
      'attachment.uploaded',
      `File ${fileName} (${attachment.sizeBytes} bytes) attached to ${input.target.kind} ${input.target.id}`,
    );
  }

  async link(organizationId: string, createdBy: string, input: LinkInput): Promise<CommandPlan<Attachment, Write>> {
    const problem = linkUrlProblem(input.url);
    if (problem) throw new ValidationError([{ location: 'body', pointer: '/url', code: problem.code, message: problem.message }]);
    await this.requireTarget(organizationId, input.target, 'body');
    const attachment: Attachment = {
      id: newId('att'),
      targetKind: input.target.kind,
      targetId: input.target.id,
      kind: 'link',
      fileKind: input.fileKind,
      title: input.title ?? new URL(input.url).hostname,
      fileName: null,
      contentType: null,
      sizeBytes: null,
      sha256: null,
      pageCount: null,
      url: input.url,
      createdAt: this.now(),
      createdBy,
    };
    return this.createPlan(
      organizationId,
      { attachment, objectKey: null },
      'attachment.linked',
      `Link to ${new URL(input.url).hostname} attached to ${input.target.kind} ${input.target.id}`,
    );
  }

  /** The plan that deletes the record; the caller removes the body once it has committed (`removeBody`). */
  async delete(organizationId: string, attachmentId: string): Promise<CommandPlan<StoredAttachment, Write>> {
    const stored = await this.ports.attachments.get(organizationId, attachmentId);
    if (!stored) throw attachmentNotFound();
    const { attachment } = stored;
    return {
      writes: this.ports.attachments.deleteWrites(organizationId, stored),
      audit: {
        kind: 'attachment.deleted',
        target: { kind: 'attachment', id: attachment.id },
        summary: `${attachment.kind === 'file' ? `File ${attachment.fileName}` : `Link to ${attachment.url}`} removed from ${attachment.targetKind} ${attachment.targetId}`,
        changes: [],
      },
      events: [],
      result: stored,
    };
  }

  /** After the delete committed: removes the body; a failure leaves an orphan for the sweeper, never a dangling record. */
  async removeBody(stored: StoredAttachment): Promise<void> {
    if (stored.objectKey) await this.ports.objects.delete(stored.objectKey);
  }

  private createPlan(
    organizationId: string,
    stored: StoredAttachment,
    kind: 'attachment.uploaded' | 'attachment.linked',
    summary: string,
  ): CommandPlan<Attachment, Write> {
    return {
      writes: this.ports.attachments.createWrites(organizationId, stored),
      audit: { kind, target: { kind: 'attachment', id: stored.attachment.id }, summary, changes: [] },
      events: [],
      result: stored.attachment,
    };
  }

  private async requireTarget(organizationId: string, target: AttachmentTarget, location: 'form' | 'body'): Promise<void> {
    if (await this.ports.targets.exists(organizationId, target)) return;
    throw new ApiError(400, 'customer-api.attachments.unknown-target', 'Unknown target', {
      detail: `No ${target.kind} '${target.id}' in the organization to attach to.`,
      extensions: {
        errors: [
          {
            location,
            ...(location === 'form' ? { name: 'TargetId' } : { pointer: '/targetId' }),
            code: 'unknown-target',
            message: `No ${target.kind} with this id.`,
          },
        ],
      },
    });
  }

  private now(): string {
    return (this.ports.clock?.() ?? new Date()).toISOString();
  }
}
