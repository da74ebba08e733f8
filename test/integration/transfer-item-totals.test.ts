import { describe, expect, it } from 'vitest';
import type { ImportRecords } from '../../lib/imports/domain/kind-definition.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { uniqueOrganization } from '../support/api.ts';
import { importRecords, itemsOf, locationsOf, runImportInProcess, watchedImportRecords } from '../support/imports.ts';
import { expectLedgerMatches, stockAt } from '../support/stock.ts';

/**
 * A transfer leaves the item's on-hand across locations as it is (docs/inventory.md
 * "Concurrency"): a stock-transfers job neither reads, writes nor checks the item's total, so
 * transfers of one item contend only on the stock records they move.
 */

const csv = (...lines: string[]) => lines.join('\n') + '\n';

/** The real import records, noting each write's op and each entity read. */
const recordingRecords = (ops: string[], readEntities: string[]) =>
  watchedImportRecords({ afterRead: (entity) => void readEntities.push(entity), onWrite: (op) => void ops.push(op) });

const runJob = (organizationId: string, kind: string, file: string, records?: ImportRecords<StoreWrite>) =>
  runImportInProcess(organizationId, kind, file, records ? { records } : {});

describe('a stock-transfers job', () => {
  it('moves the stock with no item-total action in its transactions, and the total stays at its version', async () => {
    // Prepare: 30 WIDGET at A1
    const organizationId = uniqueOrganization();
    await runJob(organizationId, 'items', csv('sku,name,reorderPoint', 'WIDGET,Widget,25'));
    await runJob(organizationId, 'locations', csv('code,name', 'A1,Bin A1', 'B1,Bin B1'));
    await runJob(organizationId, 'po-receipts', csv('poNumber,sku,locationCode,quantity', 'PO-1,WIDGET,A1,30'));
    const widget = (await itemsOf(organizationId, ['WIDGET'])).get('WIDGET')?.record.id ?? '';
    const locations = await locationsOf(organizationId, ['A1', 'B1']);
    const [a1, b1] = ['A1', 'B1'].map((code) => locations.get(code)?.record.id ?? '');
    const totalBefore = (await importRecords().getByNaturalKeys(organizationId, 'item-stock', [widget])).get(widget);

    // Act: the source falls below the reorder point; a third row asks for more than is left
    const ops: string[] = [];
    const readEntities: string[] = [];
    const job = await runJob(
      organizationId,
      'stock-transfers',
      csv('reference,sku,fromLocationCode,toLocationCode,quantity,lot', 'T-1,WIDGET,A1,B1,10,', 'T-2,WIDGET,A1,B1,8,', 'T-3,WIDGET,A1,B1,50,'),
      recordingRecords(ops, readEntities),
    );

    // Assess
    expect(job.counts).toMatchObject({ created: 2, failed: 1 });
    expect(ops).not.toContain('put-item-stock');
    expect(ops).not.toContain('check-item-stock');
    expect(readEntities).not.toContain('item-stock');
    expect(ops.filter((op) => op === 'create' || op === 'update')).toEqual(['update', 'create']);
    expect((await importRecords().getByNaturalKeys(organizationId, 'item-stock', [widget])).get(widget)).toEqual(totalBefore);
    expect(totalBefore?.record).toMatchObject({ onHand: 30 });
    const [source, destination] = await Promise.all([stockAt(organizationId, widget, a1 ?? '', null), stockAt(organizationId, widget, b1 ?? '', null)]);
    expect([source.onHand, destination.onHand]).toEqual([12, 18]);
    await expectLedgerMatches(organizationId, source);
    await expectLedgerMatches(organizationId, destination);
  });
});
