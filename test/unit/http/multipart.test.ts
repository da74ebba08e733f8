import { describe, expect, it } from 'vitest';
import { parseMultipart, type MultipartLimits } from '../../../lib/platform/http/multipart.ts';
import type { HttpEvent } from '../../../lib/platform/http/types.ts';

const LIMITS: MultipartLimits = { maxFileBytes: 1024, maxFiles: 1, maxFields: 4, maxFieldBytes: 64 };

function event(contentType: string, body: string): HttpEvent {
  return { headers: { 'content-type': contentType }, body: Buffer.from(body).toString('base64'), isBase64Encoded: true } as unknown as HttpEvent;
}

const part = (name: string, value: string, fileName?: string) =>
  `--XyZ\r\nContent-Disposition: form-data; name="${name}"${fileName ? `; filename="${fileName}"` : ''}\r\n${fileName ? 'Content-Type: text/csv\r\n' : ''}\r\n${value}\r\n`;

describe('parseMultipart', () => {
  it('reads fields and one file', async () => {
    const form = await parseMultipart(
      event('multipart/form-data; boundary=XyZ', `${part('kind', 'items')}${part('file', 'sku,name', 'a.csv')}--XyZ--\r\n`),
      LIMITS,
    );
    expect(form.fields).toEqual({ kind: 'items' });
    expect(form.files.map((file) => [file.fieldName, file.fileName, file.content.toString()])).toEqual([['file', 'a.csv', 'sku,name']]);
  });

  it('accepts the boundary after other parameters', async () => {
    const form = await parseMultipart(event('multipart/form-data; charset=utf-8; boundary=XyZ', `${part('kind', 'items')}--XyZ--\r\n`), LIMITS);
    expect(form.fields).toEqual({ kind: 'items' });
  });

  it('answers 400 for a file part cut off before its boundary, without an uncaught error', async () => {
    const truncated = '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nsku,name';
    await expect(parseMultipart(event('multipart/form-data; boundary=XyZ', truncated), LIMITS)).rejects.toMatchObject({
      status: 400,
      errors: [expect.objectContaining({ code: 'malformed' })],
    });
  });

  it.each([
    ['a second file', `${part('file', 'a', 'a.csv')}${part('other', 'b', 'b.csv')}--XyZ--\r\n`, 400],
    ['a file over the limit', `${part('file', 'x'.repeat(1025), 'a.csv')}--XyZ--\r\n`, 413],
    ['a field over the limit', `${part('kind', 'k'.repeat(65))}--XyZ--\r\n`, 400],
    ['a repeated field', `${part('kind', 'a')}${part('kind', 'b')}--XyZ--\r\n`, 400],
  ])('refuses %s with %i', async (_label, body, status) => {
    await expect(parseMultipart(event('multipart/form-data; boundary=XyZ', body), LIMITS)).rejects.toMatchObject({ status });
  });

  it.each(['application/json', 'multipart/form-data', 'text/csv'])('answers 415 for content type %s', async (contentType) => {
    await expect(parseMultipart(event(contentType, '{}'), LIMITS)).rejects.toMatchObject({ status: 415 });
  });
});
