import { PutCommand, TransactWriteCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as z from '../../../lib/platform/contracts/zod.ts';
import { createBomBody, updateBomBody } from '../../../lib/boms/contracts/boms.ts';
import { BOM_JSON_BODY_MAX_BYTES, BOM_LIMITS } from '../../../lib/boms/domain/bom.ts';
import { bomETag, CreateBomCommand, UpdateBomCommand } from '../../../lib/boms/domain/commands.ts';
import { BomReads } from '../../../lib/boms/domain/reads.ts';
import type { Bom, BomRevision, BomStorage } from '../../../lib/boms/domain/records.ts';
import { publicBom, publicComparison, publicRevision } from '../../../lib/boms/domain/views.ts';
import { hashIdempotencyKey, type StoredResponse } from '../../../lib/platform/write/idempotency.ts';
import { newId } from '../../../lib/platform/core/ids.ts';
import type { CommandPlan } from '../../../lib/platform/write/ports.ts';
import { toHttpResponse } from '../../../lib/platform/http/respond.ts';
import type { RequestState } from '../../../lib/platform/http/types.ts';
import { BomWritesStore } from '../../../lib/boms/store/bom-writes-store.ts';
import { documentClient } from '../../../lib/platform/aws/dynamodb-client.ts';
import { PartedResponseIdempotencyStore } from '../../../lib/platform/dynamo/idempotency-response-parts.ts';
import { ImportRecordsStore } from '../../../lib/imports/store/import-records.ts';
import { bulkChunkActions, BULK_CHUNK_BYTES, storeWriteBytes, TransactionWriter, type StoreWrite } from '../../../lib/platform/dynamo/transaction-writer.ts';
import type { TransactItem } from '../../../lib/platform/dynamo/transaction-items.ts';
import { longestId, worstCaseBomBody, worstCaseItemPorts, worstCaseUnit, type WorstText } from '../../support/bom-worst-case.ts';
import { DYNAMODB_ITEM_MAX_BYTES, DYNAMODB_TRANSACTION_MAX_BYTES, dynamoDbItemBytes, updatedItem } from '../../support/dynamodb-item-size.ts';

/**
 * The largest BOM the API accepts (500 lines, every text at its longest, docs/boms.md "Model")
 * against the limits it must fit, measured on what the real code builds, with no table: the
 * create and update commands, the BOM store and the transaction writer with the idempotency store
 * BOM writes use; the documented client is stubbed to capture what would be sent. Every item a
 * write stores fits DynamoDB's 400 KB (the BOM and its revision hold every line; list entries
 * none; a response too large for the idempotency record goes in parts), its transaction 4 MB;
 * the `boms` import commits such a BOM in one chunk; the request body fits the BOM routes' limit
 * and every response Lambda's 6 MB. Both weights of text are tried: characters of 3 UTF-8 bytes
 * (heaviest in DynamoDB) and 6-byte JSON escapes (heaviest in JSON).
 */

type Stored = Record<string, NativeAttributeValue>;

/** The longest organization id (`org_` and 64 characters), in every key. */
const ORG = `org_${'o'.repeat(64)}`;
const KEY_ID = newId('key');
const STATE: RequestState = {
  traceId: randomUUID(),
  rateLimit: [
    { policy: 'general', limit: 1200, windowSeconds: 60, remaining: 1199, resetSeconds: 60 },
    { policy: 'submission', limit: 60, windowSeconds: 60, remaining: 59, resetSeconds: 60 },
  ],
} as RequestState;
/** Lambda's limit of a synchronous response, the serialized result object. */
const LAMBDA_RESPONSE_MAX_BYTES = 6 * 1024 * 1024;

const components = Array.from({ length: BOM_LIMITS.components }, (_, index) => longestId(index + 1));
const otherComponents = Array.from({ length: BOM_LIMITS.components }, (_, index) => longestId(index + 1 + BOM_LIMITS.components));
const TARGET = longestId(0);
const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

let sent: unknown[] = [];
beforeEach(() => {
  sent = [];
  vi.spyOn(documentClient, 'send').mockImplementation((async (command: unknown) => {
    sent.push(command);
    return {};
  }) as never);
});
afterEach(() => vi.restoreAllMocks());

/** The response the chain stores with the idempotency record (lib/platform/http/chain.ts). */
function storedResponse(status: number, bom: Bom, version: number): StoredResponse {
  const {
    statusCode = status,
    headers,
    body = '',
  } = toHttpResponse({ status, json: publicBom(bom), headers: { Location: `/v1/boms/${bom.id}`, ETag: bomETag(bom, version) } }, STATE);
  return { statusCode, headers, body: String(body) };
}

/** What a Lambda returns for a JSON answer, as it leaves the function. */
const lambdaResponseBytes = (json: unknown) => utf8(JSON.stringify(toHttpResponse({ status: 200, json }, STATE)));

/**
 * Commits `plan` as a BOM route does (claim, then one transaction with the idempotency record's
 * completion) against the stubbed client; every item stored, with its size.
 */
async function committed(plan: () => Promise<CommandPlan<{ bom: Bom; version: number }, StoreWrite>>, status: number) {
  const idempotency = new PartedResponseIdempotencyStore('idempotency', 30);
  const claimed = await idempotency.claim(ORG, hashIdempotencyKey(randomUUID()), 'f'.repeat(64), new Date());
  if (claimed.kind !== 'claimed') throw new Error('The stubbed claim always succeeds');
  const claimItem = (sent.find((command) => command instanceof PutCommand) as PutCommand).input.Item as Stored;
  const writer = new TransactionWriter({ events: 'events', audit: 'audit' }, idempotency);
  const { result } = await writer.run(
    { organizationId: ORG, actor: { type: 'api-key', id: KEY_ID }, traceId: STATE.traceId, idempotency: { key: 'k'.repeat(255), claim: claimed.claim } },
    plan,
    ({ bom, version }) => storedResponse(status, bom, version),
  );
  const transaction = sent.find((command) => command instanceof TransactWriteCommand) as TransactWriteCommand;
  const items = (transaction.input.TransactItems ?? []).flatMap((item: TransactItem) => {
    if (item.Put) return [item.Put.Item as Stored];
    // The only update: the idempotency record's completion, over the claimed item.
    if (item.Update) return [updatedItem(claimItem, item.Update)];
    return [];
  });
  return { bom: result.bom, stored: items.map((item) => ({ entity: String(item.entity), bytes: dynamoDbItemBytes(item), text: JSON.stringify(item) })) };
}

function expectWithinLimits(stored: Array<{ entity: string; bytes: number; text: string }>, bom: Bom): void {
  for (const { entity, bytes } of stored) expect(bytes, `${entity}: ${bytes} bytes`).toBeLessThanOrEqual(DYNAMODB_ITEM_MAX_BYTES);
  const total = stored.reduce((sum, { bytes }) => sum + bytes, 0);
  expect(total, `the transaction's items: ${total} bytes`).toBeLessThanOrEqual(DYNAMODB_TRANSACTION_MAX_BYTES);
  // The list entries say what a list shows (a few KB of header at most), never a line.
  for (const { entity, bytes, text } of stored.filter(({ entity }) => entity === 'bom-list-entry' || entity === 'bom-revision-listing')) {
    expect(bytes, entity).toBeLessThan(4_000);
    expect(
      bom.lines.some((line) => text.includes(line.lineId)),
      entity,
    ).toBe(false);
  }
}

/** Creates the worst-case BOM through the real command and writer. */
async function createWorstCase(text: WorstText) {
  const input = z.parse(createBomBody, worstCaseBomBody({ itemIds: components, targetItemId: TARGET, text }));
  const command = new CreateBomCommand({ boms: new BomWritesStore('inventory'), items: worstCaseItemPorts(worstCaseUnit(text)) });
  return committed(() => command.create(ORG, KEY_ID, input), 201);
}

describe.each(['wide', 'escaped'] as const)('a BOM of 500 lines, every text at its longest (%s characters)', (text) => {
  it('create: the BOM, its revision and every other item fit 400 KB each (the response in parts), the transaction 4 MB', async () => {
    // Act
    const { bom, stored } = await createWorstCase(text);

    // Assess
    expect(new Set(stored.map(({ entity }) => entity))).toEqual(
      new Set([
        'natural-key',
        'bom',
        'bom-list-entry',
        'bom-revision-listing',
        'bom-revision',
        'record-pointer',
        'audit-event',
        'idempotency',
        'idempotency-response-part',
      ]),
    );
    expectWithinLimits(stored, bom);
  });

  it('update of every line and header field (revision 2): every item fits 400 KB, the transaction 4 MB', async () => {
    // Prepare: the created BOM at the highest revision number, read back as stored
    const { bom } = await createWorstCase(text);
    const current = { bom: { ...bom, revision: { ...bom.revision, number: 2_147_483_646 } }, version: 1 };
    const { code: _code, ...changed } = worstCaseBomBody({ itemIds: components, targetItemId: longestId(9_999), text, alternate: true });
    const input = z.parse(updateBomBody, { ...changed, archived: true, expectedRevisionNumber: current.bom.revision.number });
    sent = [];
    const store = new BomWritesStore('inventory');
    const boms = { get: async () => current, createWrites: store.createWrites.bind(store), updateWrites: store.updateWrites.bind(store) };
    const command = new UpdateBomCommand({ boms, items: worstCaseItemPorts(worstCaseUnit(text, true)) });

    // Act
    const { bom: updated, stored } = await committed(() => command.update(ORG, KEY_ID, bom.id, input, undefined), 200);

    // Assess
    expect(updated.revision.number).toBe(2_147_483_647);
    expect(stored.map(({ entity }) => entity)).toEqual(expect.arrayContaining(['bom', 'bom-revision', 'audit-event', 'idempotency']));
    expectWithinLimits(stored, updated);
  });

  it('the boms import applies it in one chunk: 6 actions to create, 5 to update, and bytes a chunk holds', async () => {
    // Prepare
    const { bom } = await createWorstCase(text);
    const revision: BomRevision = {
      id: bom.revision.id,
      bomId: bom.id,
      number: 1,
      createdAt: bom.createdAt,
      createdBy: 'import',
      summary: { added: 500, removed: 0, changed: 0 },
      content: bom,
    };
    const records = new ImportRecordsStore('inventory');

    // Act
    const creates = records.writesOf(ORG, { op: 'create-bom', bom, revision });
    const updates = records.writesOf(ORG, { op: 'update-bom', bom, expectedVersion: 1, revision: { ...revision, number: 2 } });

    // Assess: what the chunk planner counts (lib/imports/domain/pipeline/plan-chunk.ts)
    expect([creates.length, updates.length]).toEqual([6, 5]);
    expect(creates.length).toBeLessThanOrEqual(bulkChunkActions());
    for (const writes of [creates, updates]) expect(writes.reduce((sum, write) => sum + storeWriteBytes(write), 0)).toBeLessThanOrEqual(BULK_CHUNK_BYTES);
  });

  it('its create body fits the BOM routes’ body limit; GET, a revision and a comparison fit a Lambda response', async () => {
    // Prepare: revision 1 against the same lines all changed, and against 500 other items (500 removed, 500 added)
    const body = worstCaseBomBody({ itemIds: components, targetItemId: TARGET, text });
    const { bom } = await createWorstCase(text);
    const revisionOf = (content: Bom, number: number): BomRevision => ({
      id: newId('rev'),
      bomId: bom.id,
      number,
      createdAt: bom.createdAt,
      createdBy: KEY_ID,
      summary: { added: 500, removed: 500, changed: 0 },
      content,
    });
    const first = revisionOf(bom, 1);
    const linesOf = (itemIds: string[], lineIdOf: (index: number) => string) =>
      worstCaseBomBody({ itemIds, targetItemId: TARGET, text, alternate: true }).components.map((line, index) => ({ ...line, lineId: lineIdOf(index) }));
    const changed = revisionOf({ ...bom, lines: linesOf(components, (index) => bom.lines[index]?.lineId ?? '') }, 2);
    const replaced = revisionOf({ ...bom, lines: linesOf(otherComponents, () => newId('lin')) }, 3);
    const revisions = new Map([first, changed, replaced].map((revision) => [revision.id, revision]));
    const storage = {
      get: async () => ({ bom, version: 1 }),
      revision: async (_organizationId: string, _bomId: string, id: string) => revisions.get(id),
    } as unknown as BomStorage;
    const reads = new BomReads(storage);

    // Act
    const sizes = {
      body: utf8(JSON.stringify(body)),
      get: lambdaResponseBytes(publicBom(bom)),
      revision: lambdaResponseBytes(publicRevision(first)),
      compareChanged: lambdaResponseBytes(publicComparison(await reads.compare(ORG, bom.id, first.id, changed.id))),
      compareReplaced: lambdaResponseBytes(publicComparison(await reads.compare(ORG, bom.id, first.id, replaced.id))),
    };

    // Assess
    expect(sizes.body, `body: ${sizes.body} bytes`).toBeLessThanOrEqual(BOM_JSON_BODY_MAX_BYTES);
    for (const [response, bytes] of Object.entries(sizes).filter(([name]) => name !== 'body'))
      expect(bytes, `${response}: ${bytes} bytes`).toBeLessThanOrEqual(LAMBDA_RESPONSE_MAX_BYTES);
  });
});
