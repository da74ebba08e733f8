import { defineEntity } from './entity.ts';
import { keys } from './keys.ts';

/**
 * Every entity the stores write, declared once: type tag, schema version, key and index keys
 * (see lib/store/entity.ts). Key strings themselves are derived in keys.ts.
 */

export const inventoryRecordEntity = defineEntity<{ organizationId: string; recordType: string; id: string }>({
  type: 'inventory-record',
  schemaVersion: 2,
  key: ({ organizationId, id }) => keys.inventoryRecord(organizationId, id),
});

export const naturalKeyClaimEntity = defineEntity<{ organizationId: string; recordType: string; naturalKey: string }>({
  type: 'natural-key',
  schemaVersion: 1,
  key: ({ organizationId, recordType, naturalKey }) => keys.naturalKey(organizationId, recordType, naturalKey),
});

export const movementEntity = defineEntity<{ organizationId: string; id: string; stockRecordId: string; occurredAt: string }>({
  type: 'movement',
  schemaVersion: 1,
  key: ({ organizationId, id }) => keys.inventoryRecord(organizationId, id),
  indexKeys: ({ organizationId, stockRecordId, occurredAt, id }) => ({
    gsi1pk: keys.ledgerOf(organizationId, stockRecordId),
    gsi1sk: keys.ledgerSortKey(occurredAt, id),
  }),
});

/** Sort-key prefix of a stock record's movements in gsi1. */
export const LEDGER_PREFIX = 'MOV';
