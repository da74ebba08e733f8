import { describe, expect, it } from 'vitest';
import type { Item } from '../../lib/inventory/domain/item.ts';
import { stockRecordKey } from '../../lib/inventory/domain/stock.ts';
import type { ImportRecords } from '../../lib/imports/domain/kind-definition.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { uniqueOrganization } from '../support/api.ts';
import { importJobsStore, inventoryRecords, itemsOf, locationsOf, runImportInProcess, watchedImportRecords } from '../support/imports.ts';

/**
 * A stock job holds the item's tracking mode as it read it (docs/inventory.md "The stock model",
 * "Tracking changes"): when the mode changes after the job read the item and before its chunk
 * commits, the chunk's commit fails and it is decided again on the item as it is now, so no lot
 * stock is ever committed for an item that is no longer tracked by lot (nor stock without a lot
 * for one that now is).
 */

const csv = (...lines: string[]) => lines.join('\n') + '\n';

/** The import records, with `interfere` run once, right after the job has read its items. */
const recordsInterferingAfterItemLoad = (interfere: () => Promise<void>) =>
  watchedImportRecords({ afterRead: (entity, count) => (entity === 'item' && count === 1 ? interfere() : undefined) });

const runJob = (organizationId: string, kind: string, file: string, records?: ImportRecords<StoreWrite>) =>
  runImportInProcess(organizationId, kind, file, { duplicateStrategy: 'update', ...(records ? { records } : {}) });

async function stockRecordOf(organizationId: string, item: Item, locationId: string, lot: string | null) {
  return (await inventoryRecords().getByNaturalKeys(organizationId, 'stock-record', [stockRecordKey(item.id, locationId, lot)])).values().next().value?.record;
}

describe('a stock job whose item changes tracking mode between reading it and committing', () => {
  it.each([
    { from: 'lot', to: 'none', lot: 'L1', code: 'lot-not-allowed', history: 'no stock ever' },
    { from: 'none', to: 'lot', lot: '', code: 'lot-required', history: 'no stock ever' },
    { from: 'lot', to: 'none', lot: 'L1', code: 'lot-not-allowed', history: 'stock received and taken out again' },
  ])(
    'commits no stock for the mode it read ($from → $to, $history): the row is decided again and refused ($code)',
    async ({ from, to, lot, code, history }) => {
      // Prepare: an item tracked by `from` that holds nothing now
      const organizationId = uniqueOrganization();
      await runJob(organizationId, 'items', csv('sku,name,trackingMode', `RESIN,Resin,${from}`));
      await runJob(organizationId, 'locations', csv('code,name', 'A1,Bin A1'));
      if (history !== 'no stock ever') {
        await runJob(organizationId, 'po-receipts', csv('poNumber,sku,locationCode,quantity,lot', 'PO-0,RESIN,A1,5,L0'));
        await runJob(organizationId, 'stock-adjustments', csv('reference,sku,locationCode,quantityDelta,lot', 'ADJ-0,RESIN,A1,-5,L0'));
      }
      const changeMode = () =>
        runJob(organizationId, 'items', csv('sku,name,trackingMode', `RESIN,Resin,${to}`)).then((job) =>
          expect(job.counts).toMatchObject({ updated: 1, failed: 0 }),
        );

      // Act: the mode changes right after the receipt job read the item
      const job = await runJob(
        organizationId,
        'po-receipts',
        csv('poNumber,sku,locationCode,quantity,lot', `PO-1,RESIN,A1,10,${lot}`),
        recordsInterferingAfterItemLoad(changeMode),
      );
      const errors = await importJobsStore().listRowErrors(organizationId, job.id, undefined, 10);
      const item = (await itemsOf(organizationId, ['RESIN'])).get('RESIN')?.record as Item;
      const a1 = (await locationsOf(organizationId, ['A1'])).get('A1')?.record.id ?? '';

      // Assess
      expect(item.trackingMode).toBe(to);
      expect(job.counts).toMatchObject({ created: 0, failed: 1 });
      expect(errors.errors.map((error) => [error.rowNumber, error.column, error.code])).toEqual([[1, 'lot', code]]);
      expect(await stockRecordOf(organizationId, item, a1, lot === '' ? null : lot)).toBeUndefined();
    },
  );
});
