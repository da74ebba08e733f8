import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTestKey } from '../support/api.ts';
import { getJob, postImport, submitImport, waitForJob } from '../support/imports.ts';
import { expectProblem } from '../support/problem.ts';

/**
 * Properties of POST /v1/imports/jobs over HTTP against `npm start`: whatever multipart body
 * arrives, the answer is never a 5xx; whatever CSV file is accepted, its job ends in a final
 * state with counts that add up. Each sample uses its own key (the submission rate limit is per
 * key).
 */

const BOUNDARY_CHARS = [..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'()+_,-./:=?"];
const boundary = fc.array(fc.constantFrom(...BOUNDARY_CHARS), { minLength: 1, maxLength: 70 }).map((chars) => chars.join(''));
const text = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.constantFrom('', 'items', 'locations', 'skip', 'update', 'fail', 'sku,name\nA,a\n'),
);
const bytes = fc.uint8Array({ maxLength: 300 }).map((array) => Buffer.from(array));

const part = fc.record({
  name: fc.oneof(fc.constantFrom('kind', 'duplicateStrategy', 'file', 'x', ''), fc.string({ maxLength: 20 })),
  value: fc.oneof(
    text.map((value) => Buffer.from(value)),
    bytes,
  ),
  fileName: fc.option(fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('items.csv', '../../etc/passwd', 'a\u202Eb.csv')), { nil: undefined }),
  contentType: fc.option(fc.constantFrom('text/csv', 'application/octet-stream', 'text/plain; charset=utf-8', '', 'x'), { nil: undefined }),
});

/** A multipart body built by hand: any part names, headers and boundary, possibly cut short. */
type Part = typeof part extends fc.Arbitrary<infer Value> ? Value : never;

function multipartBody(parts: Part[], separator: string, cutAt: number | undefined): Buffer {
  const chunks: Buffer[] = [];
  for (const { name, value, fileName, contentType } of parts) {
    const disposition = `form-data; name="${name}"${fileName === undefined ? '' : `; filename="${fileName}"`}`;
    const type = contentType === undefined ? '' : `Content-Type: ${contentType}\r\n`;
    chunks.push(Buffer.from(`--${separator}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`), value, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${separator}--\r\n`));
  const body = Buffer.concat(chunks);
  return cutAt === undefined ? body : body.subarray(0, Math.floor((cutAt / 1000) * body.length));
}

describe('POST /v1/imports/jobs under generated input (property)', () => {
  it('never answers 5xx to a generated multipart body: random parts, names, boundaries, headers and truncation', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(part, { maxLength: 5 }),
        boundary,
        fc.option(fc.integer({ min: 0, max: 999 }), { nil: undefined }),
        fc.constantFrom('plain', 'quoted', 'mismatched', 'missing'),
        async (parts, separator, cutAt, boundaryParameter) => {
          // Prepare
          const { key } = await createTestKey({ scopes: ['imports:write'] });
          const declared = { plain: `boundary=${separator}`, quoted: `boundary="${separator}"`, mismatched: `boundary=${separator}x`, missing: '' }[
            boundaryParameter
          ];

          // Act
          const response = await postImport(key, multipartBody(parts, separator, cutAt), { 'content-type': `multipart/form-data; ${declared}` }, randomUUID());

          // Assess
          expect(response.status).toBeLessThan(500);
          if (response.status >= 400) await expectProblem(response, response.status);
          else await response.arrayBuffer();
        },
      ),
      { numRuns: 80 },
    );
  });

  const cell = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('', ' ', '"', '""', 'a,b', 'x\ny', '=1+1', '-1', '1e3', '12.5', 'lot', 'none', '\u0000'));
  const header = fc.shuffledSubarray(['sku', 'name', 'unit', 'description', 'category', 'barcode', 'reorderPoint', 'trackingMode', 'extra', ''], {
    minLength: 1,
  });
  const csvCell = (value: string) => (/[",\n\r]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

  it('ends every accepted job of a generated items file in a final state, with counts that add up', { timeout: 240_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(header, fc.array(fc.array(cell, { maxLength: 11 }), { maxLength: 40 }), async (columns, rows) => {
        // Prepare
        const { key } = await createTestKey({ scopes: ['imports:write', 'imports:read'] });
        const file = [columns, ...rows].map((row) => row.map(csvCell).join(',')).join('\n');

        // Act
        const response = await submitImport(key, { file, duplicateStrategy: 'update' });
        expect(response.status, await response.clone().text()).toBe(202);
        const { id } = (await response.json()) as { id: string };
        const job = await waitForJob(key, id, 60_000);

        // Assess
        expect(['succeeded', 'completed_with_errors', 'failed']).toContain(job.status);
        const { totalRows, processedRows, created, updated, skipped, failed } = job.counts;
        if (job.status === 'failed') expect(job.failure).not.toBeNull();
        else {
          expect(processedRows).toBe(totalRows);
          expect(created + updated + skipped + failed).toBe(processedRows);
        }
        expect((await getJob(key, id)).status).toBe(job.status);
      }),
      { numRuns: 25 },
    );
  });
});
