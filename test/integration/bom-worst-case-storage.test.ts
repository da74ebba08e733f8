import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as z from '../../lib/platform/contracts/zod.ts';
import { createBomBody } from '../../lib/boms/contracts/boms.ts';
import { BOM_LIMITS } from '../../lib/boms/domain/bom.ts';
import { CreateBomCommand } from '../../lib/boms/domain/commands.ts';
import { hashIdempotencyKey } from '../../lib/platform/write/idempotency.ts';
import { newId } from '../../lib/platform/core/ids.ts';
import { BomsStore } from '../../lib/boms/store/boms-store.ts';
import { PartedResponseIdempotencyStore } from '../../lib/platform/dynamo/idempotency-response-parts.ts';
import { TransactionWriter } from '../../lib/platform/dynamo/transaction-writer.ts';
import { longestId, worstCaseBomBody, worstCaseItemPorts, worstCaseUnit } from '../support/bom-worst-case.ts';
import { tableName } from '../support/events.ts';

/**
 * The largest BOM stored for real (DynamoDB Local refuses an item one byte over 400 KB): the
 * measured worst case of test/unit/boms/bom-worst-case-size.test.ts, ids and organization id as
 * long as they may be, committed in one transaction with its idempotency record and read back.
 */

describe.each(['wide', 'escaped'] as const)('the largest BOM (%s characters) on DynamoDB Local', (text) => {
  it('commits in one transaction, and the BOM, its revision and its stored response read back whole', async () => {
    // Prepare: the longest organization id (`org_` and 64 characters)
    const organizationId = `org_${randomUUID().replaceAll('-', '')}${'o'.repeat(32)}`;
    const input = z.parse(
      createBomBody,
      worstCaseBomBody({ itemIds: Array.from({ length: BOM_LIMITS.components }, (_, index) => longestId(index + 1)), targetItemId: longestId(0), text }),
    );
    const boms = new BomsStore(tableName('inventory'));
    const idempotency = new PartedResponseIdempotencyStore(tableName('idempotency'), 30);
    const writer = new TransactionWriter({ events: tableName('events'), audit: tableName('audit') }, idempotency);
    const keyHash = hashIdempotencyKey(randomUUID());
    const claimed = await idempotency.claim(organizationId, keyHash, 'fingerprint', new Date());
    if (claimed.kind !== 'claimed') throw new Error('A fresh key is claimed');
    const command = new CreateBomCommand({ boms, items: worstCaseItemPorts(worstCaseUnit(text)) });
    const keyId = newId('key');

    // Act
    const { result, response } = await writer.run(
      { organizationId, actor: { type: 'api-key', id: keyId }, traceId: null, idempotency: { key: 'k', claim: claimed.claim } },
      () => command.create(organizationId, keyId, input),
      ({ bom }) => ({
        statusCode: 201,
        headers: { 'Content-Type': 'application/json; charset=utf-8' },
        body: JSON.stringify(bom),
      }),
    );
    const stored = await boms.get(organizationId, result.bom.id);
    const revision = await boms.revision(organizationId, result.bom.id, result.bom.revision.id);
    const replay = await idempotency.claim(organizationId, keyHash, 'fingerprint', new Date());

    // Assess
    expect(stored?.bom).toEqual(result.bom);
    expect(revision?.content.lines).toEqual(result.bom.lines);
    expect(replay).toEqual({ kind: 'replay', response });
  });
});
