import type { BuildProvenance } from '../../lib/boms/domain/records.ts';
import { entityItem } from '../../lib/platform/dynamo/entity.ts';
import { buildPointerEntity, buildProvenanceEntity } from '../../lib/boms/store/entities.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { tableName } from './events.ts';

/**
 * Build provenance in its first stored layout (schema version 1), which deployments still hold:
 * the pointer and every source entry carrying the whole provenance as `build`. This is what
 * `BomsStore.buildWrites` wrote until the layout of lib/boms/store/build-provenance-items.ts, from the
 * same entity definitions (keys and lot-trace index keys unchanged) at their version 1.
 */
export function legacyBuildWrites(organizationId: string, build: BuildProvenance): StoreWrite[] {
  const pointerV1 = { ...buildPointerEntity, schemaVersion: 1 };
  const entryV1 = { ...buildProvenanceEntity, schemaVersion: 1 };
  const TableName = tableName('inventory');
  // One entry per stock record; the old code kept the last line of a record drawn twice.
  const sources = new Map(build.consumed.map((line) => [line.sourceStockRecordId, line]));
  const pointer = entityItem(
    pointerV1,
    { organizationId, id: build.id, produced: { itemId: build.outputItemId, lot: build.outputLot ?? null, builtAt: build.builtAt } },
    { bomId: build.bomId, build },
  );
  return [
    { item: { Put: { TableName, Item: pointer, ConditionExpression: 'attribute_not_exists(pk)' } } },
    ...[...sources].map(([stockRecordId, line]) => ({
      item: {
        Put: {
          TableName,
          Item: entityItem(
            entryV1,
            { organizationId, bomId: build.bomId, stockRecordId, buildId: build.id, consumed: { itemId: line.itemId, lot: line.lot, builtAt: build.builtAt } },
            { build },
          ),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    })),
  ];
}
