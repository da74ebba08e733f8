import type { Attachment } from './attachment.ts';

/** The API view of an attachment, always in the documented field order (storage does not keep key order). */
export function publicAttachment(attachment: Attachment) {
  const { id, targetKind, targetId, kind, fileKind, title, fileName, contentType, sizeBytes, sha256, pageCount, url, createdAt, createdBy } = attachment;
  return { id, targetKind, targetId, kind, fileKind, title, fileName, contentType, sizeBytes, sha256, pageCount, url, createdAt, createdBy };
}
