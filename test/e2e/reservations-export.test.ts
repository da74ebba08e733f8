import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Reservation } from '../../lib/reservations/domain/reservation.ts';
import { callApi, createTestKey } from '../support/api.ts';
import { csvRecords, exportAndDownload, jsonlRecords, postExport } from '../support/exports.ts';
import { csvOf, importAndWait } from '../support/imports.ts';
import { expectProblem } from '../support/problem.ts';

/**
 * The `reservations` export kind over HTTP against `npm start` (docs/exports.md "Kinds"): an
 * active, a partly fulfilled and a released reservation exported as CSV and JSON Lines, every
 * column of every row checked against the reservations as GET reads them, the filters, the
 * hostile-cell escape, and the documented 400 for a status no reservation has.
 */

let key: string;
let active: Reservation;
let partlyFulfilled: Reservation;
let released: Reservation;

async function post(path: string, body?: unknown): Promise<Reservation> {
  const response = await callApi(path, {
    method: 'POST',
    key,
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  expect(response.status, text).toBeLessThan(300);
  return JSON.parse(text) as Reservation;
}

async function read(id: string): Promise<Reservation> {
  return (await (await callApi(`/v1/reservations/${id}`, { key })).json()) as Reservation;
}

/** The rows the file must have for these reservations, each cell as the CSV writes it. */
function expectedCsvRows(reservations: readonly Reservation[]): Array<Record<string, string>> {
  const escaped = (text: string) => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);
  return reservations.flatMap((reservation) =>
    reservation.lines.map((line) => ({
      reservationId: reservation.id,
      reference: escaped(reservation.reference),
      status: reservation.status,
      expiresAt: reservation.expiresAt,
      createdAt: reservation.createdAt,
      updatedAt: reservation.updatedAt,
      lineId: line.lineId,
      itemId: line.itemId,
      sku: line.sku,
      locationId: line.locationId,
      locationCode: line.locationCode,
      lot: line.lot ?? '',
      stockRecordId: line.stockRecordId,
      quantity: String(line.quantity),
      fulfilledQuantity: String(line.fulfilledQuantity),
      releasedQuantity: String(line.releasedQuantity),
      left: String(line.quantity - line.fulfilledQuantity - line.releasedQuantity),
    })),
  );
}

beforeAll(async () => {
  ({ key } = await createTestKey());
  const succeeded = async (kind: string, file: string) =>
    expect((await importAndWait(key, { kind, duplicateStrategy: 'fail', file })).status).toBe('succeeded');
  await succeeded(
    'items',
    csvOf(
      ['sku', 'name', 'trackingMode'],
      [
        ['WIDGET', 'Widget', 'none'],
        ['RESIN', 'Resin', 'lot'],
      ],
    ),
  );
  await succeeded('locations', csvOf(['code', 'name', 'type'], [['BIN-1', 'Bin one', 'bin']]));
  await succeeded(
    'po-receipts',
    csvOf(
      ['poNumber', 'sku', 'locationCode', 'quantity', 'lot'],
      [
        ['PO-1', 'WIDGET', 'BIN-1', '10', ''],
        ['PO-1', 'RESIN', 'BIN-1', '3', 'L1'],
      ],
    ),
  );
  await succeeded('po-receipts', csvOf(['poNumber', 'sku', 'locationCode', 'quantity', 'lot'], [['PO-2', 'RESIN', 'BIN-1', '4', 'L2']]));

  // A hostile reference with a comma: escaped and quoted in the CSV, as every text cell.
  active = await post('/v1/reservations', { reference: '=SUM(A1,B1)', lines: [{ sku: 'WIDGET', locationCode: 'BIN-1', quantity: 4 }] });
  const resin = await post('/v1/reservations', { reference: 'ORDER-2', lines: [{ sku: 'RESIN', locationCode: 'BIN-1', quantity: 5 }] });
  await post(`/v1/reservations/${resin.id}/fulfil`, { lines: [{ lineId: resin.lines[0]!.lineId, quantity: 1.5 }] });
  partlyFulfilled = await read(resin.id);
  const widget = await post('/v1/reservations', { reference: 'ORDER-3', lines: [{ sku: 'WIDGET', locationCode: 'BIN-1', quantity: 2 }] });
  released = await post(`/v1/reservations/${widget.id}/release`);
});

describe('Export kind reservations', () => {
  it('writes one row per line, every column as GET reads the reservation, in CSV and JSON Lines', { timeout: 60_000 }, async () => {
    // Act
    const csv = await exportAndDownload(key, { kind: 'reservations', format: 'csv' });
    const jsonl = await exportAndDownload(key, { kind: 'reservations', format: 'jsonl' });

    // Assess: the three states, oldest first, one row per line (the resin reservation holds two lots)
    expect(partlyFulfilled).toMatchObject({
      status: 'active',
      lines: [
        { lot: 'L1', quantity: 3, fulfilledQuantity: 1.5 },
        { lot: 'L2', quantity: 2, fulfilledQuantity: 0 },
      ],
    });
    expect(released).toMatchObject({ status: 'released', lines: [{ quantity: 2, releasedQuantity: 2 }] });
    const expected = expectedCsvRows([active, partlyFulfilled, released]);
    expect(csv.job.rowCount).toBe(4);
    expect(csvRecords(csv.content)).toEqual(expected);
    expect(csv.content).toContain(`${active.id},"'=SUM(A1,B1)",active,`);
    expect(jsonlRecords(jsonl.content)).toEqual(
      expected.map((row, index) => ({
        ...row,
        reference: [active, partlyFulfilled, partlyFulfilled, released][index]!.reference,
        lot: row.lot === '' ? null : row.lot,
        quantity: Number(row.quantity),
        fulfilledQuantity: Number(row.fulfilledQuantity),
        releasedQuantity: Number(row.releasedQuantity),
        left: Number(row.left),
      })),
    );
  });

  it('filters by status, reference, sku and locationCode', { timeout: 60_000 }, async () => {
    // Act
    const byStatus = await exportAndDownload(key, { kind: 'reservations', filters: { status: 'released' } });
    const byReference = await exportAndDownload(key, { kind: 'reservations', filters: { reference: 'ORDER-2' } });
    const bySku = await exportAndDownload(key, { kind: 'reservations', filters: { sku: 'WIDGET', locationCode: 'BIN-1' } });
    const unknownSku = await exportAndDownload(key, { kind: 'reservations', filters: { sku: 'NOPE' } });

    // Assess
    expect(csvRecords(byStatus.content).map((row) => row.reservationId)).toEqual([released.id]);
    expect(csvRecords(byReference.content).map((row) => row.lineId)).toEqual(partlyFulfilled.lines.map((line) => line.lineId));
    expect(csvRecords(bySku.content).map((row) => row.reservationId)).toEqual([active.id, released.id]);
    expect(unknownSku.job.rowCount).toBe(0);
  });

  it('lists the kind with its columns and the statuses its status filter takes', async () => {
    // Act
    const response = await callApi('/v1/exports/kinds', { key });
    const body = (await response.json()) as {
      data: Array<{ kind: string; columns: Array<{ name: string }>; filters: Array<{ name: string; values?: string[] }> }>;
    };

    // Assess
    const kind = body.data.find((candidate) => candidate.kind === 'reservations');
    expect(kind?.columns.map((column) => column.name)).toEqual(Object.keys(expectedCsvRows([active])[0]!));
    expect(kind?.filters).toEqual([
      expect.objectContaining({ name: 'status', values: ['active', 'released', 'fulfilled', 'expired'] }),
      expect.objectContaining({ name: 'reference' }),
      expect.objectContaining({ name: 'sku' }),
      expect.objectContaining({ name: 'locationCode' }),
    ]);
  });

  it('refuses a status no reservation has with 400 at /filters/status', async () => {
    // Act
    const response = await postExport(key, { kind: 'reservations', filters: { status: 'pending' } });

    // Assess
    expect((await expectProblem(response, 400, 'customer-api.validation.failed')).errors).toEqual([
      expect.objectContaining({ pointer: '/filters/status', code: 'invalid-value' }),
    ]);
  });
});
