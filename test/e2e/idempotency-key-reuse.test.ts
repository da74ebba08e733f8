import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { callApi, createTestKey } from '../support/api.ts';
import { keyWithItems } from '../support/boms.ts';
import { expectProblem } from '../support/problem.ts';
import { ALL_ROUTES, isWrite, routeLabel } from '../support/routes.ts';
import { sampleWrite, type SampleIds } from '../support/write-samples.ts';
import type { RouteDefinition } from '../../lib/platform/contracts/route-types.ts';

/**
 * A key reused on a different request is 409 `key-reused`, whatever route first used it
 * (docs/api-guide.md "Idempotency"). The routes that answer with a webhook signing secret store
 * their response sealed, and only their own functions can open it: another route given such a key
 * must refuse it without opening the response, and their own retry must still replay it.
 * Generated from the route table, so a new write route is covered without being listed here.
 */

const WRITE_ROUTES = ALL_ROUTES.filter(isWrite);
/** The routes whose stored responses are sealed: those that seal and open webhook secrets. */
const CONFIDENTIAL_ROUTES = WRITE_ROUTES.filter((route) => route.access.webhookSecrets === 'seal-and-open');
const route = (operationId: string): RouteDefinition => {
  const found = ALL_ROUTES.find((candidate) => candidate.operationId === operationId);
  if (!found) throw new Error(`no route ${operationId}`);
  return found;
};

function send(key: string, target: RouteDefinition, idempotencyKey: string, ids: SampleIds = {}) {
  const { path, headers, body } = sampleWrite(target, idempotencyKey, ids);
  return callApi(path, { method: target.method, key, headers, body });
}

async function createEndpoint(key: string): Promise<string> {
  const response = await send(key, route('createWebhookEndpoint'), randomUUID());
  const body = (await response.json()) as { id: string };
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body.id;
}

/** Uses `idempotencyKey` on a confidential route, so the key's record holds a sealed response; returns that response. */
async function firstUseOnConfidential(key: string, confidential: RouteDefinition, idempotencyKey: string) {
  const ids = confidential.path.includes('{id}') ? { id: await createEndpoint(key) } : {};
  const response = await send(key, confidential, idempotencyKey, ids);
  const text = await response.text();
  expect(response.status, text).toBe(confidential.success.status);
  expect(text).toMatch(/"secret":"whsec_/);
  return { ids, status: response.status, text };
}

describe('the confidential routes', () => {
  it('are the routes whose handler stores a confidential response, among them the webhook endpoint create and the secret rotation', () => {
    // Prepare
    const sealing = (candidate: RouteDefinition) => readFileSync(candidate.handler, 'utf8').includes('confidentialResponse: true');
    // Act
    const handlersThatSeal = WRITE_ROUTES.filter(sealing).map((candidate) => candidate.operationId);
    // Assess
    expect(handlersThatSeal).toEqual(CONFIDENTIAL_ROUTES.map((candidate) => candidate.operationId));
    expect(handlersThatSeal).toEqual(expect.arrayContaining(['createWebhookEndpoint', 'rotateWebhookSecret']));
  });
});

describe.each(CONFIDENTIAL_ROUTES.map((confidential) => [routeLabel(confidential), confidential] as const))(
  'a key first used on %s',
  (_label, confidential) => {
    it.each(WRITE_ROUTES.map((target) => [routeLabel(target), target] as const))('answers 409 key-reused when sent to %s', async (_target, target) => {
      // Prepare
      const { key } = await createTestKey();
      const idempotencyKey = randomUUID();
      await firstUseOnConfidential(key, confidential, idempotencyKey);
      // Act
      // Another tag: a request other than the first even on the first's own route.
      const reused = await send(key, target, idempotencyKey, { tag: 'REUSED' });
      // Assess
      await expectProblem(reused, 409, 'customer-api.idempotency.key-reused');
    });

    it('still replays its own response on a retry of the same request', async () => {
      // Prepare
      const { key } = await createTestKey();
      const idempotencyKey = randomUUID();
      const first = await firstUseOnConfidential(key, confidential, idempotencyKey);
      await expectProblem(await send(key, route('submitExport'), idempotencyKey), 409, 'customer-api.idempotency.key-reused');
      // Act
      const retry = await send(key, confidential, idempotencyKey, first.ids);
      // Assess
      expect(retry.status).toBe(first.status);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(await retry.text()).toBe(first.text);
    });
  },
);

/**
 * Ordinary writes whose sample request succeeds in a small world (two items, an endpoint, a
 * BOM, an attachment link), so their key's record holds a stored response.
 */
const ORDINARY_FIRST_USES = [
  'submitExport',
  'submitImportJob',
  'createAttachmentLink',
  'uploadAttachment',
  'deleteAttachment',
  'createBom',
  'updateBom',
  'replaceWebhookEndpoint',
  'deleteWebhookEndpoint',
  'replayWebhookEvents',
] as const;

/** The ids an ordinary write's sample needs to succeed: the record it changes, made first. */
async function idsFor(key: string, itemIds: readonly string[], ordinary: RouteDefinition): Promise<SampleIds> {
  const ids = { itemIds, tag: randomUUID().slice(0, 8) };
  const made = async (operationId: string) => {
    const created = await send(key, route(operationId), randomUUID(), ids);
    const body = (await created.json()) as { id: string };
    expect(created.status, JSON.stringify(body)).toBe(201);
    return { ...ids, id: body.id };
  };
  if (ordinary.path.startsWith('/v1/webhooks/endpoints/')) return made('createWebhookEndpoint');
  if (ordinary.operationId === 'updateBom') return made('createBom');
  if (ordinary.operationId === 'deleteAttachment') return made('createAttachmentLink');
  return ids;
}

describe('a key first used on an ordinary write', () => {
  // One organization with two items for every case: each case uses keys of its own.
  let world: { key: string; itemIds: readonly string[] };
  beforeAll(async () => {
    world = await keyWithItems(2);
  });

  describe.each(ORDINARY_FIRST_USES.map((operationId) => [routeLabel(route(operationId)), route(operationId)] as const))('%s', (_label, ordinary) => {
    it.each(CONFIDENTIAL_ROUTES.map((confidential) => [routeLabel(confidential), confidential] as const))(
      'answers 409 key-reused when sent to %s',
      async (_target, confidential) => {
        // Prepare
        const { key, itemIds } = world;
        const idempotencyKey = randomUUID();
        const first = await send(key, ordinary, idempotencyKey, await idsFor(key, itemIds, ordinary));
        const firstText = await first.text();
        expect(first.status, firstText).toBe(ordinary.success.status);
        const ids = confidential.path.includes('{id}') ? { id: await createEndpoint(key) } : {};
        // Act
        const reused = await send(key, confidential, idempotencyKey, ids);
        // Assess
        await expectProblem(reused, 409, 'customer-api.idempotency.key-reused');
      },
    );
  });
});
