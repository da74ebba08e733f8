import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../../lib/platform/events/types.ts';
import type { ImportJob } from '../../lib/imports/domain/job.ts';
import type { Reservation } from '../../lib/reservations/domain/reservation.ts';
import { csvOf, importForm } from '../support/imports.ts';
import { startPrivateServer, type PrivateServer } from '../support/private-server.ts';

/**
 * Reservations expire through `npm start`'s own scheduler (docs/inventory.md "Reservations and
 * available stock", docs/operations.md "Local runtime"): a server of this suite's own with
 * LOCAL_SWEEP_SECONDS=1 (the shared stack runs its sweeps every minute, and a faster one would
 * race the suites that sweep by hand), a reservation expiring 2 s after its creation, and nothing
 * but the scheduled sweep to expire it: GET shows it `expired`, what it held is available again,
 * and the feed has the `stock.changed` that released it, with its reservationId.
 */

const SWEEP_SECONDS = 1;
const EXPIRES_IN_MS = 2_000;

let server: PrivateServer;

async function imported(kind: string, file: string): Promise<void> {
  const submitted = await server.call('/v1/imports/jobs', {
    method: 'POST',
    headers: { 'idempotency-key': randomUUID() },
    body: importForm({ kind, duplicateStrategy: 'fail', file }),
  });
  const job = (await submitted.json()) as ImportJob;
  expect(submitted.status, JSON.stringify(job)).toBe(202);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const current = (await (await server.call(`/v1/imports/jobs/${job.id}`)).json()) as ImportJob;
    if (current.status === 'succeeded') return;
    if (current.status !== 'queued' && current.status !== 'processing') throw new Error(`import ${kind} ended ${current.status}: ${JSON.stringify(current)}`);
    if (Date.now() > deadline) throw new Error(`import ${kind} still ${current.status} after 30 s:\n${server.output().slice(-2_000)}`);
    await sleep(100);
  }
}

beforeAll(async () => {
  server = await startPrivateServer({ LOCAL_SWEEP_SECONDS: String(SWEEP_SECONDS) });
  await imported('items', csvOf(['sku', 'name'], [['WIDGET', 'Widget']]));
  await imported('locations', csvOf(['code', 'name', 'type'], [['BIN-1', 'Bin one', 'bin']]));
  await imported('po-receipts', csvOf(['poNumber', 'sku', 'locationCode', 'quantity', 'lot'], [['PO-1', 'WIDGET', 'BIN-1', '10', '']]));
}, 120_000);

afterAll(async () => {
  await server?.stop();
}, 60_000);

describe('npm start with LOCAL_SWEEP_SECONDS=1', () => {
  it(
    'expires a reservation through its own scheduler: GET shows it expired, reserved back to available, stock.changed in the feed',
    { timeout: 30_000 },
    async () => {
      // Prepare
      const expiresAt = new Date(Date.now() + EXPIRES_IN_MS).toISOString();
      const created = await server.call('/v1/reservations', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify({ reference: 'EXPIRES-SOON', expiresAt, lines: [{ sku: 'WIDGET', locationCode: 'BIN-1', quantity: 4 }] }),
      });
      const reservation = (await created.json()) as Reservation;
      expect(created.status, JSON.stringify(reservation)).toBe(201);
      const itemId = reservation.lines[0]!.itemId;
      expect(await (await server.call(`/v1/items/${itemId}/availability`)).json()).toMatchObject({ onHand: 10, reserved: 4, available: 6 });

      // Act: only the scheduled sweep can expire it; wait for it, bounded
      let read: Reservation = reservation;
      const deadline = Date.parse(expiresAt) + 10 * SWEEP_SECONDS * 1000;
      while (read.status === 'active' && Date.now() < deadline) {
        await sleep(200);
        read = (await (await server.call(`/v1/reservations/${reservation.id}`)).json()) as Reservation;
      }
      const seenAfterMs = Date.now() - Date.parse(expiresAt);
      const availability = await (await server.call(`/v1/items/${itemId}/availability`)).json();
      const feed = (await (await server.call('/v1/events?type=stock.changed&limit=200')).json()) as { data: EventEnvelope[] };

      // Assess
      expect(read, server.output().slice(-2_000)).toMatchObject({ status: 'expired', lines: [{ quantity: 4, releasedQuantity: 4, fulfilledQuantity: 0 }] });
      expect(Date.parse(read.updatedAt)).toBeGreaterThanOrEqual(Date.parse(expiresAt));
      // The sweep runs every second: seen expired within a few sweeps of expiresAt (GET polled every 200 ms).
      expect(seenAfterMs).toBeLessThan(5 * SWEEP_SECONDS * 1000);
      expect(availability).toMatchObject({ onHand: 10, reserved: 0, available: 10 });
      const released = feed.data.filter((event) => event.data.reservationId === reservation.id).map((event) => event.data);
      expect(released).toEqual([
        expect.objectContaining({ delta: 0, previousReserved: 0, reserved: 4, movementId: null }),
        expect.objectContaining({ delta: 0, previousReserved: 4, reserved: 0, available: 10, movementId: null, reservationId: reservation.id }),
      ]);
    },
  );
});
