import { describe, expect, it } from 'vitest';
import { entityItem, sortKeyRange } from '../../../lib/platform/dynamo/entity.ts';
import {
  inventoryListOf,
  inventoryRecordEntity,
  LIST_PREFIXES,
  listSortKeys,
  movementEntity,
  naturalKeyClaimEntity,
} from '../../../lib/inventory/store/entities.ts';

describe('entity layer', () => {
  it('builds an item from the declaration: key, index keys, type tag, schema version, then the attributes', () => {
    // Act: a transfer, whose two legs are the item's two index keys
    const item = entityItem(
      movementEntity,
      { organizationId: 'org_a', id: 'mov_1', occurredAt: '2026-11-22T10:00:00.000Z', stockRecordIds: ['stk_1', 'stk_2'] },
      { quantity: 3 },
    );

    // Assess
    expect(item).toEqual({
      pk: 'ORG#org_a#LIST#movement',
      sk: 'AT#2026-11-22T10:00:00.000Z#mov_1',
      gsi1pk: 'ORG#org_a#LEDGER#stk_1',
      gsi1sk: 'MOV#2026-11-22T10:00:00.000Z#mov_1',
      gsi2pk: 'ORG#org_a#LEDGER#stk_2',
      gsi2sk: 'MOV#2026-11-22T10:00:00.000Z#mov_1',
      entity: 'movement',
      schemaVersion: 3,
      quantity: 3,
    });
  });

  it("gives a movement of one leg gsi1 alone, and its key is its list entry's", () => {
    // Act
    const item = entityItem(movementEntity, { organizationId: 'org_a', id: 'mov_1', occurredAt: '2026-11-22T10:00:00.000Z', stockRecordIds: ['stk_1'] }, {});

    // Assess
    expect(Object.keys(item).filter((name) => name.startsWith('gsi'))).toEqual(['gsi1pk', 'gsi1sk']);
    expect({ pk: item.pk, sk: item.sk }).toEqual({
      pk: inventoryListOf('org_a', 'movement'),
      sk: listSortKeys.movement('2026-11-22T10:00:00.000Z', 'mov_1'),
    });
    expect(String(item.sk).startsWith(`${LIST_PREFIXES.movementAt}#`)).toBe(true);
  });

  it.each([
    { entity: inventoryRecordEntity, identity: { organizationId: 'org_a', recordType: 'item', id: 'itm_1' }, key: { pk: 'ORG#org_a#itm_1', sk: 'RECORD' } },
    {
      entity: naturalKeyClaimEntity,
      identity: { organizationId: 'org_a', recordType: 'item', naturalKey: 'BOLT#M6' },
      key: { pk: 'ORG#org_a#NK#item#BOLT#M6', sk: 'KEY' },
    },
  ])('derives the key of $entity.type from its identity, tenant first', ({ entity, identity, key }) => {
    expect((entity.key as (value: typeof identity) => unknown)(identity)).toEqual(key);
  });

  it('never lets an attribute override the key or the envelope', () => {
    const item = entityItem(
      inventoryRecordEntity,
      { organizationId: 'org_a', recordType: 'item', id: 'itm_1' },
      { pk: 'ORG#org_b#itm_1', entity: 'x', schemaVersion: 9, version: 1 },
    );
    expect(item).toEqual({ pk: 'ORG#org_a#itm_1', sk: 'RECORD', entity: 'inventory-record', schemaVersion: 2, version: 1 });
  });

  it.each([
    { prefix: 'ERR', inside: ['ERR#000000001#000', 'ERR#999999999#999'], outside: ['ERR', 'ERQ#1', 'ERR%', 'ERRX#1', 'JOB'] },
    { prefix: 'AUD', inside: ['AUD#2026-11-22T10:00:00.000Z#aud_1'], outside: ['AUD', 'AUDIT#x', 'AUD%'] },
  ])('sortKeyRange($prefix) covers exactly the sort keys "$prefix#…"', ({ prefix, inside, outside }) => {
    const { lower, upper } = sortKeyRange(prefix);
    const within = (sortKey: string) => sortKey >= lower && sortKey <= upper;
    for (const sortKey of inside) expect(within(sortKey), sortKey).toBe(true);
    for (const sortKey of outside) expect(within(sortKey), sortKey).toBe(false);
  });
});
