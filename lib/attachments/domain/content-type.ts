import { fileTypeFromBuffer } from 'file-type';

/**
 * The content type of an upload, sniffed from its bytes (docs/attachments.md "Files"); what the
 * client declares is never used. Formats file-type recognises get their type; other well-formed
 * UTF-8 text without NUL is text/plain; anything else is application/octet-stream. Downloads are
 * always forced as attachments, so even a mislabelled HTML page is never rendered by a browser.
 */
const utf8 = new TextDecoder('utf-8', { fatal: true });

export async function sniffContentType(content: Buffer): Promise<string> {
  const detected = await fileTypeFromBuffer(content);
  if (detected) return detected.mime;
  if (content.includes(0)) return 'application/octet-stream';
  try {
    utf8.decode(content);
    return 'text/plain';
  } catch {
    return 'application/octet-stream';
  }
}
