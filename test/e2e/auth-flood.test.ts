import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { generateApiKey } from '../../lib/platform/auth/api-key.ts';
import { baseUrl, createTestKey } from '../support/api.ts';
import { TEST_AUTH_FAILURE_LIMIT } from '../support/global-stack.ts';
import { assertDocumentedResponse } from '../support/openapi-responses.ts';
import { expectProblem } from '../support/problem.ts';
import { withinOneWindow } from '../support/rate-limit-window.ts';

/**
 * The per-source limit on failed authentications (docs/api-guide.md "Failed authentications")
 * over HTTP, against `npm start`'s server with the test run's limit (TEST_AUTH_FAILURE_LIMIT per
 * 60 s, set through AUTH_FAILURE_LIMIT_PER_MINUTE; the default is 100). The server runs on 127.0.0.1 and
 * takes the socket's peer address as `sourceIp` (local/lambda-event.ts); the flood is sent from
 * another loopback address, 127.0.0.2, so the other suites' 401s (from 127.0.0.1) neither add to
 * it nor turn into 429s.
 */

const LIMIT = TEST_AUTH_FAILURE_LIMIT;
const FLOOD_SOURCE = '127.0.0.2';
const BARCODE = '/v1/barcodes?payload=x';
const CONCURRENCY = 8;

/** GET `path` with the key, from `localAddress`; the response must be one docs/openapi.json documents. */
async function getFrom(localAddress: string, path: string, key: string): Promise<Response> {
  const url = new URL(path, baseUrl());
  const response = await new Promise<Response>((resolve, reject) => {
    const outgoing = request(url, { method: 'GET', localAddress, headers: { authorization: `Bearer ${key}` } }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', reject);
      incoming.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          for (const item of Array.isArray(value) ? value : [value]) if (item !== undefined) headers.append(name, item);
        }
        resolve(new Response(Buffer.concat(chunks), { status: incoming.statusCode ?? 0, headers }));
      });
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
  await assertDocumentedResponse({ method: 'GET', url: path }, response);
  return response;
}

describe('a flood of forged keys from one source', () => {
  it(`gets 429 after ${LIMIT} failed authentications in a window, while a valid key from the same source still works`, async () => {
    // Prepare
    const { key: validKey } = await createTestKey();
    const total = LIMIT + 20;
    // Act
    const outcome = await withinOneWindow(async (inWindow) => {
      const statuses: number[] = [];
      let next = 0;
      let stopped = false;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < total && !stopped) {
            if (!inWindow()) {
              stopped = true;
              return;
            }
            next += 1;
            const response = await getFrom(FLOOD_SOURCE, BARCODE, generateApiKey('test'));
            statuses.push(response.status);
            await response.arrayBuffer();
          }
        }),
      );
      if (stopped) return undefined;
      const valid = await getFrom(FLOOD_SOURCE, BARCODE, validKey);
      const forgedAgain = await getFrom(FLOOD_SOURCE, BARCODE, generateApiKey('test'));
      const otherSource = await getFrom('127.0.0.1', BARCODE, generateApiKey('test'));
      return { statuses, valid, forgedAgain, otherSource };
    });
    // Assess
    const { statuses, valid, forgedAgain, otherSource } = outcome;
    expect(statuses.filter((status) => status === 401)).toHaveLength(LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(total - LIMIT);
    expect(valid.status).toBe(200);
    await valid.arrayBuffer();
    const problem = await expectProblem(forgedAgain, 429, 'customer-api.rate-limit.exceeded');
    expect(problem.traceId).toBe(forgedAgain.headers.get('x-trace-id'));
    expect(Number(forgedAgain.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await expectProblem(otherSource, 401, 'customer-api.auth.unauthenticated');
  });
});
