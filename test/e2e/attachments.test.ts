import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { attachmentObjectKey } from '../../lib/attachments/domain/attachment.ts';
import { AttachmentObjectsStore } from '../../lib/attachments/store/attachment-objects.ts';
import { s3Client } from '../../lib/platform/aws/s3-client.ts';
import { BUCKET_ENV_VAR } from '../../lib/platform/storage/tables.ts';
import { callApi } from '../support/api.ts';
import { keyWithItems } from '../support/boms.ts';
import { rawMultipart } from '../support/imports.ts';
import { expectProblem } from '../support/problem.ts';

/**
 * The attachment routes over HTTP against `npm start`'s server (docs/attachments.md), with the
 * real S3 (s3rver): uploads, presigned downloads fetched with a plain HTTP client, links, deletes,
 * hostile names, URLs and forms, replays and tenant isolation.
 */

interface AttachmentBody {
  id: string;
  kind: string;
  fileName: string | null;
  contentType: string | null;
  sizeBytes: number | null;
  sha256: string | null;
  title: string;
  targetKind: string;
  targetId: string;
}

const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360f8ffff3f0005fe02fea7d6a0b30000000049454e44ae426082',
  'hex',
);

function upload(
  key: string,
  parts: { TargetKind?: string; TargetId?: string; fileName?: string; content?: Buffer; fields?: Record<string, string> },
  options: { idempotencyKey?: string; boundary?: string; partType?: string } = {},
) {
  const form = [
    ...(parts.TargetKind === undefined ? [] : [{ name: 'TargetKind', value: parts.TargetKind }]),
    ...(parts.TargetId === undefined ? [] : [{ name: 'TargetId', value: parts.TargetId }]),
    ...Object.entries(parts.fields ?? {}).map(([name, value]) => ({ name, value })),
    ...(parts.content === undefined
      ? []
      : [{ name: 'File', value: parts.content, fileName: parts.fileName ?? 'file.bin', contentType: options.partType ?? 'application/octet-stream' }]),
  ];
  const { body, contentType } = rawMultipart(form, options.boundary);
  return callApi('/v1/attachments/upload', {
    method: 'POST',
    key,
    headers: { 'content-type': contentType, 'idempotency-key': options.idempotencyKey ?? randomUUID() },
    body,
  });
}

function link(key: string, body: unknown, idempotencyKey = randomUUID()) {
  return callApi('/v1/attachments/links', {
    method: 'POST',
    key,
    headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    body: JSON.stringify(body),
  });
}

function remove(key: string, id: string, idempotencyKey = randomUUID()) {
  return callApi(`/v1/attachments/${id}`, { method: 'DELETE', key, headers: { 'idempotency-key': idempotencyKey } });
}

async function uploaded(key: string, itemId: string, fileName: string, content: Buffer): Promise<AttachmentBody> {
  const response = await upload(key, { TargetKind: 'item', TargetId: itemId, fileName, content });
  expect(response.status).toBe(200);
  return (await response.json()) as AttachmentBody;
}

async function downloadUrl(key: string, id: string): Promise<{ url: string; expiresAt: string; fileName: string; contentType: string; sizeBytes: number }> {
  const response = await callApi(`/v1/attachments/${id}/download-url`, { key });
  expect(response.status).toBe(200);
  return (await response.json()) as { url: string; expiresAt: string; fileName: string; contentType: string; sizeBytes: number };
}

async function objectExists(key: string): Promise<boolean> {
  try {
    await s3Client.send(new HeadObjectCommand({ Bucket: process.env[BUCKET_ENV_VAR], Key: key }));
    return true;
  } catch {
    return false;
  }
}

describe('upload and download', () => {
  it.each([
    { label: 'a PDF', fileName: 'datasheet.pdf', content: PDF, contentType: 'application/pdf' },
    { label: 'a PNG', fileName: 'photo.png', content: PNG, contentType: 'image/png' },
    { label: 'an HTML page named .png', fileName: 'evil.png', content: Buffer.from('<html><script>alert(1)</script></html>'), contentType: 'text/plain' },
  ])('stores $label with its sniffed type; its URL downloads exactly its bytes, forced as an attachment', async ({ fileName, content, contentType }) => {
    // Prepare
    const { key, itemIds } = await keyWithItems(1);

    // Act
    const attachment = await uploaded(key, itemIds[0] ?? '', fileName, content);
    const download = await downloadUrl(key, attachment.id);
    const fetched = await fetch(download.url);

    // Assess
    expect(attachment).toMatchObject({
      kind: 'file',
      fileName,
      title: fileName,
      contentType,
      sizeBytes: content.length,
      targetKind: 'item',
      targetId: itemIds[0],
    });
    expect(download).toMatchObject({ fileName, contentType, sizeBytes: content.length });
    expect(Date.parse(download.expiresAt) - Date.now()).toBeGreaterThan(14 * 60_000);
    expect(fetched.status).toBe(200);
    expect(Buffer.from(await fetched.arrayBuffer()).equals(content)).toBe(true);
    expect(fetched.headers.get('content-type')).toBe(contentType);
    expect(fetched.headers.get('content-disposition')).toBe(`attachment; filename="${fileName}"; filename*=UTF-8''${fileName}`);
  });

  it.each([
    { label: 'path segments', given: '../../etc/passwd', stored: 'passwd' },
    { label: 'CR and LF', given: 'a\r\nSet-Cookie: x.pdf', stored: 'aSet-Cookie: x.pdf' },
    { label: 'a quote', given: 'quote".pdf', stored: 'quote".pdf' },
    { label: 'NUL', given: 'nul\u0000.pdf', stored: 'nul.pdf' },
    { label: 'a right-to-left override', given: 'invoice\u202Efdp.exe', stored: 'invoicefdp.exe' },
    { label: '300 characters', given: `${'n'.repeat(296)}.pdf`, stored: 'n'.repeat(255) },
  ])('stores a name with $label safely and serves a safe Content-Disposition', async ({ given, stored }) => {
    // Prepare
    const { key, itemIds } = await keyWithItems(1);

    // Act
    const response = await upload(key, { TargetKind: 'item', TargetId: itemIds[0], fileName: given, content: PDF });
    const attachment = (await response.json()) as AttachmentBody;
    const fetched = await fetch((await downloadUrl(key, attachment.id)).url);
    await fetched.arrayBuffer();

    // Assess
    expect(response.status).toBe(200);
    expect(attachment.fileName).toBe(stored);
    const disposition = fetched.headers.get('content-disposition') ?? '';
    // Printable ASCII only, with a quoted fallback free of quotes and backslashes.
    expect(disposition).toMatch(/^attachment; filename="[ !#-[\]-~]*"; filename\*=UTF-8''[A-Za-z0-9!#$&+.^_`|~%-]*$/);
    expect(decodeURIComponent(disposition.split("UTF-8''")[1] ?? '')).toBe(stored);
  });

  it('stops working once the URL has expired', async () => {
    // Prepare: a body stored as uploads store them; a URL signed for 1 second
    const objects = new AttachmentObjectsStore(process.env[BUCKET_ENV_VAR] ?? '');
    const key = attachmentObjectKey('org_expiry', `att_${randomUUID().replaceAll('-', '').slice(0, 26)}`);
    await objects.put(key, PDF, 'application/pdf', 'x');
    const url = await objects.downloadUrl(key, { fileName: 'a.pdf', contentType: 'application/pdf', expiresInSeconds: 1 });

    // Act
    const fresh = await fetch(url);
    await fresh.arrayBuffer();
    await sleep(2100);
    const expired = await fetch(url);
    await expired.arrayBuffer();

    // Assess
    expect(fresh.status).toBe(200);
    expect(expired.status).toBe(403);
  });
});

describe('upload: refusals', () => {
  it('answers 400 unknown-target for a target that is not the organization’s, and stores nothing', async () => {
    // Prepare
    const { key } = await keyWithItems(1);
    const other = await keyWithItems(1);

    // Act
    const foreign = await upload(key, { TargetKind: 'item', TargetId: other.itemIds[0], content: PDF });
    const wrongKind = await upload(key, { TargetKind: 'location', TargetId: other.itemIds[0], content: PDF });
    const noPurchaseOrders = await upload(key, { TargetKind: 'purchase-order', TargetId: 'rcp_01J0000000000000000000000Z', content: PDF });

    // Assess
    await expectProblem(foreign, 400, 'customer-api.attachments.unknown-target');
    await expectProblem(wrongKind, 400, 'customer-api.attachments.unknown-target');
    await expectProblem(noPurchaseOrders, 400, 'customer-api.attachments.unknown-target');
  });

  it.each([
    { label: 'no File', parts: { TargetKind: 'item' }, name: 'File' },
    { label: 'no TargetKind', parts: { content: PDF }, name: 'TargetKind' },
    { label: 'an unknown FileKind', parts: { TargetKind: 'item', content: PDF, fields: { FileKind: 'poster' } }, name: 'FileKind' },
    { label: 'a fractional PageCount', parts: { TargetKind: 'item', content: PDF, fields: { PageCount: '2.5' } }, name: 'PageCount' },
    { label: 'an unknown field', parts: { TargetKind: 'item', content: PDF, fields: { Colour: 'red' } }, name: 'Colour' },
    { label: 'an empty File', parts: { TargetKind: 'item', content: Buffer.alloc(0) }, name: 'File' },
  ] as Array<{ label: string; parts: { TargetKind?: string; content?: Buffer; fields?: Record<string, string> }; name: string }>)(
    'answers 400 for $label',
    async ({ parts, name }) => {
      // Prepare
      const { key, itemIds } = await keyWithItems(1);

      // Act
      const problem = await expectProblem(await upload(key, { TargetId: itemIds[0], ...parts }), 400, 'customer-api.validation.failed');

      // Assess
      expect(problem.errors).toContainEqual(expect.objectContaining({ location: 'form', name }));
    },
  );

  it('accepts PageCount as an integer or a decimal string with a zero fraction', async () => {
    // Prepare
    const { key, itemIds } = await keyWithItems(1);

    // Act
    const whole = await upload(key, { TargetKind: 'item', TargetId: itemIds[0], content: PDF, fields: { PageCount: '12' } });
    const decimal = await upload(key, { TargetKind: 'item', TargetId: itemIds[0], content: PDF, fields: { PageCount: '12.0' } });

    // Assess
    expect(await whole.json()).toMatchObject({ pageCount: 12 });
    expect(await decimal.json()).toMatchObject({ pageCount: 12 });
  });

  it('answers 413 for a file over 4 MiB, and a fast 400 for a form of 1,000 parts', async () => {
    // Prepare
    const { key, itemIds } = await keyWithItems(1);
    const parts = Array.from({ length: 1000 }, (_, index) => ({ name: `f${index}`, value: 'x' }));
    const { body, contentType } = rawMultipart(parts);

    // Act
    const tooLarge = await upload(key, { TargetKind: 'item', TargetId: itemIds[0], content: Buffer.alloc(4 * 1024 * 1024 + 1, 0x25) });
    const started = performance.now();
    const manyParts = await callApi('/v1/attachments/upload', {
      method: 'POST',
      key,
      headers: { 'content-type': contentType, 'idempotency-key': randomUUID() },
      body,
    });
    const elapsed = performance.now() - started;

    // Assess
    await expectProblem(tooLarge, 413, 'customer-api.request.too-large');
    await expectProblem(manyParts, 400, 'customer-api.validation.failed');
    expect(elapsed).toBeLessThan(5000);
  });
});

describe('links', () => {
  it.each([
    'http://example.com/spec.pdf',
    'https://169.254.169.254/',
    'https://localhost/',
    'https://[::1]/',
    'https://10.0.0.1/',
    'https://user:pw@host.example/',
    'javascript:alert(1)',
  ])('answers 400 for %s', async (url) => {
    // Prepare
    const { key, itemIds } = await keyWithItems(1);

    // Act
    const problem = await expectProblem(await link(key, { targetKind: 'item', targetId: itemIds[0], url }), 400, 'customer-api.validation.failed');

    // Assess
    expect(problem.errors).toEqual([expect.objectContaining({ location: 'body', pointer: '/url' })]);
  });

  it('attaches an https link (201), which has no download URL (409), and replays under its Idempotency-Key', async () => {
    // Prepare
    const { key, itemIds } = await keyWithItems(1);
    const idempotencyKey = randomUUID();
    const body = { targetKind: 'item', targetId: itemIds[0], url: 'https://vendor.example/spec.pdf?v=2', title: 'Vendor spec', fileKind: 'datasheet' };

    // Act
    const created = await link(key, body, idempotencyKey);
    const replay = await link(key, body, idempotencyKey);
    const attachment = (await created.json()) as AttachmentBody & { url: string };
    const download = await callApi(`/v1/attachments/${attachment.id}/download-url`, { key });

    // Assess
    expect(created.status).toBe(201);
    expect(attachment).toMatchObject({ kind: 'link', url: body.url, title: 'Vendor spec', fileName: null, contentType: null, sizeBytes: null });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual(attachment);
    await expectProblem(download, 409, 'customer-api.attachments.not-downloadable');
  });
});

describe('replays', () => {
  it('replays an upload of the same file sent with another boundary and another part content type', async () => {
    // Prepare
    const { key, itemIds } = await keyWithItems(1);
    const idempotencyKey = randomUUID();
    const parts = { TargetKind: 'item', TargetId: itemIds[0], fileName: 'a.pdf', content: PDF };

    // Act
    const first = await upload(key, parts, { idempotencyKey, boundary: 'first-boundary', partType: 'application/pdf' });
    const again = await upload(key, parts, { idempotencyKey, boundary: 'another-boundary', partType: 'application/octet-stream' });

    // Assess
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(await first.text());
  });
});

describe('delete', () => {
  it('removes the record and the file; the id is 404 afterwards, and a replay of the delete answers 204 again', async () => {
    // Prepare
    const { key, organizationId, itemIds } = await keyWithItems(1);
    const attachment = await uploaded(key, itemIds[0] ?? '', 'a.pdf', PDF);
    const objectKey = attachmentObjectKey(organizationId, attachment.id);
    const existedBefore = await objectExists(objectKey);
    const idempotencyKey = randomUUID();

    // Act
    const deleted = await remove(key, attachment.id, idempotencyKey);
    const replayed = await remove(key, attachment.id, idempotencyKey);
    const again = await remove(key, attachment.id);
    const download = await callApi(`/v1/attachments/${attachment.id}/download-url`, { key });
    const listed = (await (await callApi(`/v1/attachments?targetKind=item&targetId=${itemIds[0]}`, { key })).json()) as { data: unknown[] };

    // Assess
    expect(existedBefore).toBe(true);
    expect(deleted.status).toBe(204);
    expect(replayed.status).toBe(204);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(await objectExists(objectKey)).toBe(false);
    await expectProblem(again, 404, 'customer-api.attachments.not-found');
    await expectProblem(download, 404, 'customer-api.attachments.not-found');
    expect(listed.data).toEqual([]);
  });
});

describe('listing and tenant isolation', () => {
  it('lists a target’s attachments and the organization’s, in pages; another organization sees none and its ids are 404', async () => {
    // Prepare: 3 files on item 1, 1 link on item 2
    const { key, itemIds } = await keyWithItems(2);
    const other = await keyWithItems(1);
    const files = [];
    for (const name of ['a.pdf', 'b.pdf', 'c.pdf']) files.push(await uploaded(key, itemIds[0] ?? '', name, PDF));
    const linked = (await (await link(key, { targetKind: 'item', targetId: itemIds[1], url: 'https://example.com/x' })).json()) as AttachmentBody;

    // Act
    const firstPage = (await (await callApi(`/v1/attachments?targetKind=item&targetId=${itemIds[0]}&limit=2`, { key })).json()) as {
      data: AttachmentBody[];
      page: { nextCursor: string | null };
    };
    const secondPage = (await (
      await callApi(`/v1/attachments?targetKind=item&targetId=${itemIds[0]}&limit=2&cursor=${encodeURIComponent(firstPage.page.nextCursor ?? '')}`, { key })
    ).json()) as {
      data: AttachmentBody[];
      page: { nextCursor: string | null };
    };
    const all = (await (await callApi('/v1/attachments', { key })).json()) as { data: AttachmentBody[] };
    const foreignList = (await (await callApi(`/v1/attachments?targetKind=item&targetId=${itemIds[0]}`, { key: other.key })).json()) as { data: unknown[] };
    const foreignAll = (await (await callApi('/v1/attachments', { key: other.key })).json()) as { data: unknown[] };
    const foreignDownload = await callApi(`/v1/attachments/${files[0]?.id}/download-url`, { key: other.key });
    const foreignDelete = await remove(other.key, files[0]?.id ?? '');
    const onlyKind = await callApi('/v1/attachments?targetKind=item', { key });

    // Assess
    expect([...firstPage.data, ...secondPage.data].map((attachment) => attachment.fileName)).toEqual(['a.pdf', 'b.pdf', 'c.pdf']);
    expect(secondPage.page.nextCursor).toBeNull();
    expect(all.data.map((attachment) => attachment.id)).toEqual([...files.map((file) => file.id), linked.id]);
    expect(foreignList.data).toEqual([]);
    expect(foreignAll.data).toEqual([]);
    await expectProblem(foreignDownload, 404, 'customer-api.attachments.not-found');
    await expectProblem(foreignDelete, 404, 'customer-api.attachments.not-found');
    await expectProblem(onlyKind, 400, 'customer-api.validation.failed');
  });
});
