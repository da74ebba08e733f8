import { describe, expect, it } from 'vitest';
import { exportPorts } from '../../functions/workers/process-export-jobs.ts';
import { filteredReservationRows } from '../../lib/exports/domain/reservation-rows.ts';
import type { ExportRow } from '../../lib/exports/domain/format.ts';
import { newExportJob } from '../../lib/exports/domain/submit.ts';
import { SettleReservationCommand, type SettleAction, type SettleLineInput } from '../../lib/reservations/domain/settle.ts';
import { reservationPorts } from '../../lib/reservations/store/reservation-ports.ts';
import { StockStore } from '../../lib/stock/store/stock-store.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName, transactionWriter } from '../support/events.ts';
import { inventoryRecords } from '../support/imports.ts';
import { reserveAsOf, storedReservations } from '../support/reservations.ts';
import { A1, WIDGET } from '../support/stock-world.ts';

/**
 * The `reservations` export is exact as of its snapshot (docs/exports.md "Snapshots") on the local
 * stack: the worker's real source reads the reservations as stored, page by page, after changes
 * committed past the snapshot S (releases, a fulfilment, a new reservation), and rolls each back
 * to S through the before-images the changes stored and the events they emitted.
 */

const ACTOR = { type: 'system' as const, id: 'reservation-export-tests' };

/** WIDGET with 10 on hand at A1. */
async function stocked(): Promise<string> {
  const organizationId = uniqueOrganization();
  const store = inventoryRecords();
  const stock = new StockStore(tableName('inventory'));
  const at = new Date().toISOString();
  const record = {
    id: `stk_W_${organizationId.slice(-8)}`,
    itemId: WIDGET.id,
    sku: WIDGET.sku,
    locationId: A1.id,
    locationCode: A1.code,
    lot: null,
    onHand: 10,
    createdAt: at,
    updatedAt: at,
  };
  const writes = [
    ...store.createWrites(organizationId, 'item', WIDGET),
    ...store.createWrites(organizationId, 'location', A1),
    ...store.createWrites(organizationId, 'stock-record', record),
    stock.itemStockWrite(organizationId, { itemId: WIDGET.id, onHand: 10, trackingMode: 'none' }, null, 'none'),
  ];
  await transactionWriter().run({ organizationId, actor: ACTOR, traceId: null }, async () => ({ writes, events: [], result: undefined }));
  return organizationId;
}

async function settle(organizationId: string, id: string, action: SettleAction, lines?: SettleLineInput[]): Promise<void> {
  const command = new SettleReservationCommand(reservationPorts(tableName('inventory')));
  await transactionWriter().run({ organizationId, actor: ACTOR, traceId: null }, () => command.settle(organizationId, id, action, lines));
}

/** Every row of a reservations export of `filters` as of `asOfSequence`, read one reservation a page. */
async function exportedRows(organizationId: string, asOfSequence: number, filters: Record<string, unknown> = {}): Promise<ExportRow[]> {
  const source = await exportPorts.sources.open(newExportJob(organizationId, { kind: 'reservations', format: 'csv', filters }, new Date()), asOfSequence);
  const rows: ExportRow[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await source.page(after, 1);
    rows.push(...page.rows);
    if (!page.more || page.last === undefined) return rows;
    after = page.last;
  }
}

const widgetLine = (quantity: number) => ({ sku: WIDGET.sku, locationCode: A1.code, lot: null, quantity });

describe('Export kind reservations as of its snapshot', () => {
  it(
    'writes each reservation as it was at S: changes after S rolled back, one created after S left out, the status filter at S',
    { timeout: 60_000 },
    async () => {
      // Prepare: two reservations, then S
      const organizationId = await stocked();
      const first = await reserveAsOf(organizationId, { reference: 'R-1', expiresAt: null, lines: [widgetLine(4)] }, new Date());
      const second = await reserveAsOf(organizationId, { reference: 'R-2', expiresAt: null, lines: [widgetLine(2)] }, new Date());
      await settle(organizationId, first.id, 'release', [{ lineId: first.lines[0]!.lineId, quantity: 0.5 }]);
      const asOf = await exportPorts.events.lastSequence(organizationId);
      const atSnapshot = await storedReservations(organizationId);

      // Act: changes after S, at once (each version of a reservation its own updatedAt), then the exports
      await settle(organizationId, first.id, 'release', [{ lineId: first.lines[0]!.lineId, quantity: 1 }]);
      await settle(organizationId, first.id, 'fulfil', [{ lineId: first.lines[0]!.lineId, quantity: 1 }]);
      await settle(organizationId, second.id, 'release');
      await reserveAsOf(organizationId, { reference: 'R-3', expiresAt: null, lines: [widgetLine(1)] }, new Date());
      const rows = await exportedRows(organizationId, asOf);
      const activeAtSnapshot = await exportedRows(organizationId, asOf, { status: 'active' });
      const releasedAtSnapshot = await exportedRows(organizationId, asOf, { status: 'released' });
      const current = await exportedRows(organizationId, await exportPorts.events.lastSequence(organizationId));

      // Assess
      expect(atSnapshot.map((reservation) => [reservation.reference, reservation.status, reservation.lines[0]!.releasedQuantity])).toEqual([
        ['R-1', 'active', 0.5],
        ['R-2', 'active', 0],
      ]);
      expect(rows).toEqual(filteredReservationRows(atSnapshot, {}));
      expect(activeAtSnapshot).toEqual(rows);
      expect(releasedAtSnapshot).toEqual([]);
      expect(current).toEqual(filteredReservationRows(await storedReservations(organizationId), {}));
      expect(current.map((row) => [row.reference, row.status, row.fulfilledQuantity, row.releasedQuantity, row.left])).toEqual([
        ['R-1', 'active', 1, 1.5, 1.5],
        ['R-2', 'released', 0, 2, 0],
        ['R-3', 'active', 0, 0, 1],
      ]);
    },
  );
});
