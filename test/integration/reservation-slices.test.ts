import { describe, expect, it } from 'vitest';
import type { Item } from '../../lib/inventory/domain/item.ts';
import { stockRecordKey, type StockRecord } from '../../lib/inventory/domain/stock.ts';
import type { PendingKind } from '../../lib/reservations/domain/pending.ts';
import type { SliceRun } from '../../lib/reservations/domain/ports.ts';
import { ReserveCommand, type ReservationInput } from '../../lib/reservations/domain/reserve.ts';
import type { Reservation } from '../../lib/reservations/domain/reservation.ts';
import { SettleReservationCommand, type SettleAction, type SettleLineInput } from '../../lib/reservations/domain/settle.ts';
import { decideAgainOnLostRace } from '../../lib/stock/domain/changes/commit.ts';
import { reservationPorts } from '../../lib/reservations/store/reservation-ports.ts';
import { StockStore } from '../../lib/stock/store/stock-store.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName, transactionWriter } from '../support/events.ts';
import { feedOf, inventoryRecords } from '../support/imports.ts';
import { sweepOrganization } from '../support/reservations.ts';
import { A1, itemOf } from '../support/stock-world.ts';

/**
 * Reservations in slices on the local stack (docs/inventory.md "Reservations and available
 * stock"): a create, fulfilment, release and expiry of 100 lots each run in several
 * transactions; a crash after a slice of any kind (a fault hook, as
 * test/integration/build-runner.test.ts does for builds), finished by a retry with the same
 * Idempotency-Key, by another request or by the expiry sweep, ends in the same stock, reservation
 * and feed as a run never interrupted; a create a race leaves short half way unwinds, crash or
 * not; two settles at once apply once; a reservation stored before slices, with more lots than
 * one transaction settles, settles.
 */

const ACTOR = { type: 'api-key' as const, id: 'key_slice_tests' };
const STORED_AT = '2026-11-01T08:00:00.000Z';
const LOTS = 100;
const lotName = (index: number) => `L${String(index).padStart(3, '0')}`;
const ports = () => reservationPorts(tableName('inventory'));

async function commit(organizationId: string, writes: StoreWrite[]): Promise<void> {
  await transactionWriter().run({ organizationId, actor: ACTOR, traceId: null }, async () => ({ writes, events: [], result: undefined }));
}

/** MANY (LOTS lots of 2 at A1) and ONCE (LOTS lots of 1), tracked by lot. */
async function world(): Promise<{ organizationId: string; many: Item; once: Item }> {
  const organizationId = uniqueOrganization();
  const store = inventoryRecords();
  const stock = new StockStore(tableName('inventory'));
  const many = itemOf('itm_many', 'MANY', { trackingMode: 'lot' });
  const once = itemOf('itm_once', 'ONCE', { trackingMode: 'lot' });
  const writes: StoreWrite[] = [...store.createWrites(organizationId, 'location', A1)];
  for (const [item, each] of [
    [many, 2],
    [once, 1],
  ] as const) {
    writes.push(
      ...store.createWrites(organizationId, 'item', item),
      stock.itemStockWrite(organizationId, { itemId: item.id, onHand: each * LOTS, trackingMode: 'lot' }, null, 'lot'),
    );
    for (let index = 0; index < LOTS; index += 1) {
      const at = new Date(Date.parse(STORED_AT) + index * 1000).toISOString();
      const record: StockRecord = {
        id: `stk_${item.sku}_${lotName(index)}`,
        itemId: item.id,
        sku: item.sku,
        locationId: A1.id,
        locationCode: A1.code,
        lot: lotName(index),
        onHand: each,
        createdAt: at,
        updatedAt: at,
      };
      writes.push(...store.createWrites(organizationId, 'stock-record', record));
    }
  }
  for (let start = 0; start < writes.length; start += 90) await commit(organizationId, writes.slice(start, start + 90));
  return { organizationId, many, once };
}

/** A request's run of slices; `crashAfter` throws once after the first slice of that kind commits (the process died there). */
function runOf(organizationId: string, requestKey: string | null, crash?: { kind: PendingKind; armed: boolean }): SliceRun<StoreWrite> {
  return {
    writer: transactionWriter(),
    context: { organizationId, actor: ACTOR, traceId: null },
    requestKey,
    afterSlice: (kind) => {
      if (crash?.armed && crash.kind === kind) {
        crash.armed = false;
        throw new Error(`injected crash after a ${kind} slice`);
      }
    },
  };
}

const isInjected = (error: unknown) => error instanceof Error && error.message.startsWith('injected crash');

/** Runs a request to its answer, retrying it with the same key after an injected crash, as a client would. */
async function request<T>(attempt: () => Promise<T>): Promise<{ answer: T; crashes: number }> {
  for (let crashes = 0; ; crashes += 1) {
    try {
      return { answer: await attempt(), crashes };
    } catch (error) {
      if (!isInjected(error)) throw error;
    }
  }
}

async function create(
  organizationId: string,
  input: ReservationInput,
  requestKey: string,
  crash?: { kind: PendingKind; armed: boolean },
): Promise<Reservation> {
  const command = new ReserveCommand(ports());
  const run = runOf(organizationId, requestKey, crash);
  return decideAgainOnLostRace(async () => (await transactionWriter().run(run.context, () => command.create(organizationId, input, run))).result);
}

async function settle(
  organizationId: string,
  id: string,
  action: SettleAction,
  lines: SettleLineInput[] | undefined,
  requestKey: string | null,
  crash?: { kind: PendingKind; armed: boolean },
): Promise<Reservation> {
  const command = new SettleReservationCommand(ports());
  const run = runOf(organizationId, requestKey, crash);
  // As the routes do: a last slice that lost a race is decided again.
  return decideAgainOnLostRace(async () => (await transactionWriter().run(run.context, () => command.settle(organizationId, id, action, lines, run))).result);
}

/** On-hand and reserved of every stock record, by sku and lot, and of each item's total. */
async function stockState(organizationId: string, items: Item[]): Promise<Record<string, readonly [number, number]>> {
  const keys = items.flatMap((item) => Array.from({ length: LOTS }, (_, index) => stockRecordKey(item.id, A1.id, lotName(index))));
  const found = await ports().stock.getByNaturalKeys(organizationId, 'stock-record', keys);
  const totals = await ports().stock.getByNaturalKeys(
    organizationId,
    'item-stock',
    items.map((item) => item.id),
  );
  return Object.fromEntries([
    ...[...found.values()].map(
      ({ record }) =>
        [`${(record as StockRecord).sku}/${(record as StockRecord).lot}`, [(record as StockRecord).onHand, (record as StockRecord).reserved ?? 0]] as const,
    ),
    ...[...totals.entries()].map(
      ([itemId, { record }]) => [`total/${itemId}`, [(record as StockRecord).onHand, (record as StockRecord).reserved ?? 0]] as const,
    ),
  ]);
}

/** The feed without what differs between two runs (ids, times): types, skus, lots and quantities in commit order. */
async function feedShape(organizationId: string): Promise<string[]> {
  return (await feedOf(organizationId)).map((event) => {
    const data = event.data as {
      movement?: { type: string; sku: string; lot: string | null; quantity: number };
      sku?: string;
      lot?: string | null;
      delta?: number;
      reserved?: number;
    };
    return data.movement
      ? `${event.type}:${data.movement.type}:${data.movement.sku}:${data.movement.lot}:${data.movement.quantity}`
      : `${event.type}:${data.sku ?? ''}:${data.lot ?? ''}:${data.delta ?? ''}:${data.reserved ?? ''}`;
  });
}

/** The reservation without ids and times. */
const shapeOf = (reservation: Reservation) => ({
  status: reservation.status,
  lines: reservation.lines.map((line) => [line.sku, line.lot, line.quantity, line.fulfilledQuantity, line.releasedQuantity]),
});

/**
 * The whole story on a fresh world: 100 lots of MANY held, 60 of them fulfilled in part, the
 * rest released; 100 lots of ONCE held and expired by the sweep's command. `crash` names the
 * slice kind after which the process dies once; each request is then retried with its key (the
 * expiry: by the sweep).
 */
async function story(crash?: PendingKind) {
  const { organizationId, many, once } = await world();
  const fault = crash ? { kind: crash, armed: true } : undefined;
  let crashes = 0;
  const held = await request(() =>
    create(
      organizationId,
      { reference: 'MANY-ALL', expiresAt: null, lines: [{ sku: 'MANY', locationCode: A1.code, lot: null, quantity: 2 * LOTS }] },
      'create-many',
      fault,
    ),
  );
  crashes += held.crashes;
  const part = await request(() =>
    settle(
      organizationId,
      held.answer.id,
      'fulfil',
      held.answer.lines.slice(0, 60).map((line) => ({ lineId: line.lineId, quantity: 1 })),
      'fulfil-part',
      fault,
    ),
  );
  crashes += part.crashes;
  const released = await request(() => settle(organizationId, held.answer.id, 'release', undefined, 'release-rest', fault));
  crashes += released.crashes;
  const onceHeld = await create(
    organizationId,
    { reference: 'ONCE-ALL', expiresAt: null, lines: [{ sku: 'ONCE', locationCode: A1.code, lot: null, quantity: LOTS }] },
    'create-once',
  );
  try {
    await settle(organizationId, onceHeld.id, 'expire', undefined, null, fault);
  } catch (error) {
    if (!isInjected(error)) throw error;
    crashes += 1;
    // The sweep, as of after the operation's grace, finishes what the dead sweep began.
    const swept = await sweepOrganization(organizationId, new Date(Date.now() + 10 * 60_000));
    expect(swept.errors).toBe(0);
  }
  const stored = await ports().reservations.get(organizationId, held.answer.id);
  const storedOnce = await ports().reservations.get(organizationId, onceHeld.id);
  return {
    crashes,
    answers: [held.answer, part.answer, released.answer].map(shapeOf),
    stored: [stored, storedOnce].map((entry) => ({ ...shapeOf(entry!.reservation), pending: entry!.pending })),
    stock: await stockState(organizationId, [many, once]),
    feed: await feedShape(organizationId),
  };
}

describe('reservations in slices', () => {
  it('a crash after a slice of any kind ends in the same answers, stock, reservations and feed as a run never interrupted', async () => {
    // Act
    const plain = await story();
    const crashed = await Promise.all((['create', 'fulfil', 'release', 'expire'] as const).map(async (kind) => [kind, await story(kind)] as const));

    // Assess: the plain run is what the story says
    expect(plain.crashes).toBe(0);
    expect(plain.answers.map((answer) => answer.status)).toEqual(['active', 'active', 'fulfilled']);
    expect(plain.stored.map((entry) => [entry.status, entry.pending])).toEqual([
      ['fulfilled', undefined],
      ['expired', undefined],
    ]);
    expect(plain.stock['MANY/L000']).toEqual([1, 0]);
    expect(plain.stock['MANY/L099']).toEqual([2, 0]);
    expect(plain.stock['total/itm_many']).toEqual([140, 0]);
    expect(plain.stock['total/itm_once']).toEqual([100, 0]);
    expect(plain.feed.filter((entry) => entry.startsWith('movement.created:shipment'))).toHaveLength(60);
    for (const [kind, run] of crashed) {
      expect(run.crashes, kind).toBe(1);
      expect(run.answers, kind).toEqual(plain.answers);
      expect(run.stored, kind).toEqual(plain.stored);
      expect(run.stock, kind).toEqual(plain.stock);
      expect(run.feed, kind).toEqual(plain.feed);
    }
  }, 600_000);

  it('a create whose later lot a race takes unwinds: 409 insufficient-stock, nothing held, the reference free; a crash while unwinding ends the same', async () => {
    for (const crash of [undefined, 'unwind'] as const) {
      // Prepare: after the first slice, another reservation takes the last lot whole
      const { organizationId, many } = await world();
      let raced = false;
      const fault = crash ? { kind: crash, armed: true } : undefined;
      const command = new ReserveCommand(ports());
      const base = runOf(organizationId, 'create-raced', fault);
      const run: SliceRun<StoreWrite> = {
        ...base,
        afterSlice: async (kind, slicesDone) => {
          if (!raced) {
            raced = true;
            await create(
              organizationId,
              { reference: 'RACER', expiresAt: null, lines: [{ sku: 'MANY', locationCode: A1.code, lot: lotName(LOTS - 1), quantity: 2 }] },
              'racer',
            );
          }
          await base.afterSlice?.(kind, slicesDone);
        },
      };
      const input: ReservationInput = { reference: 'RACED', expiresAt: null, lines: [{ sku: 'MANY', locationCode: A1.code, lot: null, quantity: 2 * LOTS }] };

      // Act
      const outcome = await request(() =>
        transactionWriter()
          .run(run.context, () => command.create(organizationId, input, run))
          .then(
            () => 'created',
            (error: unknown) => (isInjected(error) ? Promise.reject(error) : error),
          ),
      );
      const again = await create(organizationId, { ...input, lines: [{ sku: 'MANY', locationCode: A1.code, lot: null, quantity: 2 }] }, 'after-unwind');

      // Assess
      expect(outcome.crashes, String(crash)).toBe(crash ? 1 : 0);
      expect(outcome.answer, String(crash)).toMatchObject({
        status: 409,
        code: 'customer-api.stock.insufficient-stock',
        extensions: { lines: [{ line: 0, available: 0, requested: 2 * LOTS }] },
      });
      expect(again.reference).toBe('RACED');
      const stock = await stockState(organizationId, [many]);
      // The racer holds the last lot; the new RACED the first; nothing else is held.
      expect(stock['total/itm_many'], String(crash)).toEqual([2 * LOTS, 4]);
      expect(stock['MANY/L000'], String(crash)).toEqual([2, 2]);
      expect(stock[`MANY/${lotName(LOTS - 1)}`], String(crash)).toEqual([2, 2]);
    }
  }, 300_000);

  it('two fulfilments of one reservation at once ship it once; two finishers of one operation apply each slice once', async () => {
    // Prepare
    const { organizationId, many, once } = await world();
    const held = await create(
      organizationId,
      { reference: 'TWICE', expiresAt: null, lines: [{ sku: 'MANY', locationCode: A1.code, lot: null, quantity: 2 * LOTS }] },
      'create-twice',
    );
    const onceHeld = await create(
      organizationId,
      { reference: 'ONCE', expiresAt: null, lines: [{ sku: 'ONCE', locationCode: A1.code, lot: null, quantity: LOTS }] },
      'create-once',
    );
    const crashedRelease = await settle(organizationId, onceHeld.id, 'release', undefined, 'release-once', { kind: 'release', armed: true }).catch(
      (error: unknown) => error,
    );

    // Act
    const fulfils = await Promise.allSettled([
      settle(organizationId, held.id, 'fulfil', undefined, 'fulfil-a'),
      settle(organizationId, held.id, 'fulfil', undefined, 'fulfil-b'),
    ]);
    const finishers = await Promise.allSettled([
      settle(organizationId, onceHeld.id, 'release', undefined, 'release-once'),
      settle(organizationId, onceHeld.id, 'fulfil', undefined, 'another'),
    ]);

    // Assess: one fulfilment shipped everything, the other found nothing left
    expect(isInjected(crashedRelease)).toBe(true);
    const fulfilled = fulfils.filter((outcome) => outcome.status === 'fulfilled');
    const refused = fulfils.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as { code?: string }] : []));
    expect(fulfilled).toHaveLength(1);
    expect(refused.map((error) => error.code)).toEqual(['customer-api.reservations.not-active']);
    const feed = await feedShape(organizationId);
    expect(feed.filter((entry) => entry.startsWith('movement.created:shipment:MANY'))).toHaveLength(LOTS);
    // The release crashed after its first slice, finished by its retry or by the other request first: released once.
    expect(finishers[0]).toMatchObject({ status: 'fulfilled', value: { status: 'released' } });
    expect(finishers[1]).toMatchObject({ status: 'rejected', reason: { code: 'customer-api.reservations.not-active' } });
    expect(feed.filter((entry) => entry.startsWith('stock.changed:ONCE'))).toHaveLength(2 * LOTS);
    const stock = await stockState(organizationId, [many, once]);
    expect(stock['total/itm_many']).toEqual([0, 0]);
    expect(stock['total/itm_once']).toEqual([LOTS, 0]);
  }, 300_000);

  it('a reservation stored before slices (no operation, no requests) with more lots than one transaction settles releases and fulfils', async () => {
    // Prepare: 100 lots of MANY held by a reservation written as the old code wrote it
    const { organizationId, many } = await world();
    const store = new StockStore(tableName('inventory'));
    const lines = Array.from({ length: LOTS }, (_, index) => ({
      lineId: `rsl_legacy${String(index).padStart(3, '0')}`,
      itemId: many.id,
      sku: many.sku,
      locationId: A1.id,
      locationCode: A1.code,
      lot: lotName(index),
      stockRecordId: `stk_MANY_${lotName(index)}`,
      quantity: 2,
      fulfilledQuantity: 0,
      releasedQuantity: 0,
    }));
    const legacy: Reservation = {
      id: 'res_legacy',
      reference: 'LEGACY',
      status: 'active',
      expiresAt: '2099-01-01T00:00:00.000Z',
      createdAt: STORED_AT,
      updatedAt: STORED_AT,
      lines,
    };
    const records = await ports().stock.getByNaturalKeys(
      organizationId,
      'stock-record',
      lines.map((line) => stockRecordKey(many.id, A1.id, line.lot)),
    );
    const writes: StoreWrite[] = [];
    for (const { record, version } of records.values())
      writes.push(
        ...ports().stock.writesOf(organizationId, {
          op: 'update',
          entity: 'stock-record',
          record: { ...(record as StockRecord), reserved: 2 },
          expectedVersion: version,
        }),
      );
    writes.push(store.itemStockWrite(organizationId, { itemId: many.id, onHand: 2 * LOTS, reserved: 2 * LOTS, trackingMode: 'lot' }, 1, 'lot'));
    for (let start = 0; start < writes.length; start += 90) await commit(organizationId, writes.slice(start, start + 90));
    const [reservationPut] = ports().reservations.createWrites(organizationId, legacy, { requests: [] });
    const { requests: _requests, ...oldItem } = (reservationPut!.item.Put!.Item ?? {}) as Record<string, unknown>;
    await commit(organizationId, [{ item: { Put: { ...reservationPut!.item.Put!, Item: oldItem } } }]);

    // Act
    const part = await settle(
      organizationId,
      legacy.id,
      'fulfil',
      lines.slice(0, 50).map((line) => ({ lineId: line.lineId, quantity: 2 })),
      'legacy-fulfil',
    );
    const rest = await settle(organizationId, legacy.id, 'release', undefined, 'legacy-release');

    // Assess
    expect(part.status).toBe('active');
    expect(rest.status).toBe('fulfilled');
    const stock = await stockState(organizationId, [many]);
    expect(stock['total/itm_many']).toEqual([LOTS, 0]);
    expect(stock['MANY/L000']).toEqual([0, 0]);
    expect(stock['MANY/L099']).toEqual([2, 0]);
  }, 300_000);
});
