import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../lib/platform/core/errors.ts';
import type { EventEnvelope } from '../../lib/platform/events/types.ts';
import type { RowError } from '../../lib/imports/domain/types.ts';
import { stockRecordKey, type StockRecord } from '../../lib/inventory/domain/stock.ts';
import type { Reservation } from '../../lib/reservations/domain/reservation.ts';
import type { ItemStock } from '../../lib/stock/domain/records.ts';
import { movementView } from '../../lib/inventory/domain/reads.ts';
import { movementById } from '../../lib/inventory/store/movements-store.ts';
import { createTestKey } from '../support/api.ts';
import { tableName } from '../support/events.ts';
import { csvOf, feedOf, importJobsStore, importRecords, inventoryRecords, itemsOf, locationsOf, runImportInProcess } from '../support/imports.ts';
import { callReservationRoute, reserveAsOf, storedReservations, sweepOrganization } from '../support/reservations.ts';
import { expectEventsMatchSchemas, expectLedgerMatches, listedStockRecords, stockRecordsOfFeed } from '../support/stock.ts';
import { postStockChange, type HandlerAnswer, type StockChangeRoute } from '../support/stock-changes.ts';

/**
 * Reservations against everything else that moves stock (docs/inventory.md "Reservations and
 * available stock" and "Writing stock over JSON"): generated interleavings, on the local stack, of
 *
 * - reservations of 1 to 3 lines through `POST /v1/reservations` (the real handler with a real API
 *   key, in process): plain items, lot items with a lot, lot items without one (the oldest lots of
 *   the place first, split across lots), quantities a share of what is available or more than it,
 *   rarely a lot on an item without lots (400) or a reference already taken (409);
 * - reservations created "in the past" (the command's clock two days back, as
 *   test/integration/reservation-expiry.test.ts does), due for the expiry sweep;
 * - releases and fulfilments through `POST /v1/reservations/{id}/release` and `…/fulfil`: no body,
 *   `{}`, every line in full, some lines in part, more than a line has left, a line twice, an
 *   unknown line, a reservation no longer active, an unknown reservation, and often one holding
 *   stock a count took below what is reserved (a fulfilment then cannot ship more than is there);
 *   some of these and of the reservations are sent twice under the same Idempotency-Key;
 * - JSON adjustments, transfers, counts and receipts through their real handlers (taking a share
 *   of what is available, or more: often between available and on-hand; counts below what is
 *   reserved), and now and then an import of one of the four stock kinds (the real worker pipeline,
 *   in process);
 * - the expiry sweep, limited to the run's organization.
 *
 * The server's own sweep (every minute in `npm start`) must not expire this test's reservations
 * behind the model's back, so no reservation here is due in real time: the "past" ones were
 * created two days ago but expire 15 minutes from now, and some created through the route expire
 * in 30 minutes; the test's sweep runs as of an hour from now, when both are due (the 24 h default
 * and the 3-day ones are not).
 *
 * A model (quantities in quarters, summed as integers of 10^-6) holds each place's on-hand and
 * reserved and each reservation's lines, and predicts every answer: status and code, the lines a
 * 409 names (insufficient-stock with what is available, over-quantity with what is left), the
 * reservation a 201 or 200 answers (its lines, lots and quantities), a stock change's lines with
 * their reserved and available, an import's counts and row errors, the sweep's count, and the
 * step's `movement.created`, `stock.changed` and `low-stock` events in order. A replay answers as
 * the first request did (a 2xx byte for byte) and moves nothing. After every step it proves, on
 * what is stored:
 *
 * 1. every stock record (read through InventoryStore.getByNaturalKeys) exists exactly where a
 *    movement touched, with the model's on-hand and reserved; its `reserved` is the sum of what the
 *    active reservations' lines (as stored) have left on it, and a reservation that is not active
 *    holds nothing;
 * 2. `available` = onHand − reserved in every `stock.changed`, and nothing but a count makes
 *    available negative (or more negative): checked on the stored records between steps and on
 *    every event of the feed;
 * 3. each item's total on-hand and reserved are the sums over its records;
 * 4. the whole feed replays: each record's `stock.changed` chain on `previousQuantity` and
 *    `previousReserved` (a hold or release moves reserved only, with no movement; a shipment
 *    takes on-hand and reserved together; other movements leave reserved) to the stored on-hand
 *    and reserved, with `low-stock` exactly when an item's available crossed below its reorder
 *    point; the step's events are the model's, each valid against its schema, and each movement
 *    they announce (a shipment's too) is stored as announced, as `GET /v1/movements/{id}` reads it;
 * 5. the stored reservations are the model's (status, expiry, lines and their quantities), and
 *    lots held oldest first follow the records' receipt order (`createdAt`: when the step ran, or
 *    a backdated receipt's `receivedAt`).
 *
 * At the end of a run: the ledger invariant on every record (shipments included), and the listed
 * stock records are what the feed rebuilds.
 *
 * RESERVATIONS_PROPERTY_RUNS (or RUNS) sets the number of runs; RESERVATIONS_PROPERTY_SEED fixes
 * the random start of fast-check.
 */

// ---------------------------------------------------------------------------------------------
// The catalog

const SKUS = ['P1', 'P2', 'LOT'] as const;
type Sku = (typeof SKUS)[number];
const LOCATIONS = ['W1', 'W2'] as const;
type Loc = (typeof LOCATIONS)[number];
const LOTS = ['L1', 'L2', 'L3'] as const;
const isLotTracked = (sku: Sku) => sku === 'LOT';

interface Place {
  sku: Sku;
  loc: Loc;
  /** '' is no lot. */
  lot: string;
}
const placeKey = (place: Place) => JSON.stringify([place.sku, place.loc, place.lot]);
const nullable = (lot: string) => (lot === '' ? null : lot);
/** Every place that may hold a record, then the ones that never may (a lot item without a lot). */
const PLACES: Place[] = SKUS.flatMap((sku) => LOCATIONS.flatMap((loc) => (isLotTracked(sku) ? [...LOTS] : ['']).map((lot) => ({ sku, loc, lot }))));
const CHECKED_PLACES: Place[] = [...PLACES, ...LOCATIONS.map((loc): Place => ({ sku: 'LOT', loc, lot: '' }))];

/** A past arrival a receipt may give (a movement, and a record it creates, dated then). */
const RECEIVED_AT = '2026-01-05T10:00:00+01:00';
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** When the test's sweep runs, after now: past-created reservations (due in 15 min) and `soon` ones (30 min) are due then. */
const SWEEP_AHEAD = 60 * MINUTE;

const MICRO = 1_000_000;
const QUARTER = MICRO / 4;
const micro = (quantity: number) => Math.round(quantity * MICRO);
const decimal = (units: number) => units / MICRO;

// ---------------------------------------------------------------------------------------------
// The generated steps (abstract: quantities and places are worked out from the model when sent)

/** A quantity: a share of what is available (at least a quarter), what is available and `by` more, or a fixed one. */
type Amount = { mode: 'share'; share: number } | { mode: 'over'; by: number } | { mode: 'fixed'; units: number };

interface ReserveLineSpec {
  sku: Sku;
  loc: Loc;
  /** A lot item: hold this lot, or (oldest) leave the lot out. */
  lot: string;
  oldest: boolean;
  amount: Amount;
  /** On a place that has something available (the `pick`-th), if any. */
  stocked: boolean;
  pick: number;
  byId: boolean;
  /** A lot on an item not tracked by lot (400). */
  flaw: boolean;
}

/** A step's one line (the `at`-th, modulo) that asks what is available and `by` more; null: none does. */
type Over = { at: number; by: number } | null;

interface ReserveStep {
  kind: 'reserve';
  /** Created two days ago through the command (due for the test's sweep), not through the route. */
  past: boolean;
  reference: 'fresh' | 'taken';
  pick: number;
  expiry: 'absent' | 'null' | 'soon' | 'later';
  lines: ReserveLineSpec[];
  over: Over;
  /** Send it again under the same Idempotency-Key (the route only). */
  replay: boolean;
}

type SettleBody = 'none' | 'empty' | 'all' | 'partial' | 'over' | 'twice' | 'unknown-line';

interface SettleStep {
  kind: 'settle';
  action: 'release' | 'fulfil';
  /** An active reservation; one holding stock a count took below what is reserved (else active); any; or an unknown id (404). */
  target: 'active' | 'short' | 'any' | 'unknown';
  pick: number;
  body: SettleBody;
  share: number;
  which: number;
  /** Send it again under the same Idempotency-Key. */
  replay: boolean;
}

interface StockLineSpec {
  sku: Sku;
  loc: Loc;
  lot: string;
  amount: Amount;
  /** Adjustments: take stock (else add `units`). */
  negative: boolean;
  /** Counts: to 0, below what is reserved (by `by`), or `units`. */
  counted: 'zero' | 'under-reserved' | 'units';
  units: number;
  by: number;
  stocked: boolean;
  pick: number;
  expectation: 'right' | 'null';
}

/** A JSON stock change, or (door `import`) a file of the matching import kind, one row per line. */
interface StockStep {
  kind: 'stock';
  door: 'json' | 'import';
  route: StockChangeRoute;
  /** JSON counts: the count's location (unless the first line counts a reserved place below what is reserved: that place's). */
  location: Loc;
  /** Receipts: dated RECEIVED_AT. */
  backdated: boolean;
  lines: StockLineSpec[];
  over: Over;
}

interface SweepStep {
  kind: 'sweep';
}

type Step = ReserveStep | SettleStep | StockStep | SweepStep;

const weighted = <T>(common: fc.Arbitrary<T>, rare: fc.Arbitrary<T>, odds: number) =>
  fc.oneof({ arbitrary: common, weight: odds }, { arbitrary: rare, weight: 1 });
const quarters = (min: number, max: number) => fc.integer({ min, max }).map((count) => count * QUARTER);
const loc = fc.constantFrom<Loc>('W1', 'W1', 'W2');
const lot = fc.constantFrom<string>(...LOTS);
/** Mostly a share of what is available; rarely a fixed quantity, whatever is available. */
const amount: fc.Arbitrary<Amount> = weighted<Amount>(
  fc.record({ mode: fc.constant('share' as const), share: fc.constantFrom(0.25, 0.25, 0.5, 0.5, 0.75, 1) }),
  fc.record({ mode: fc.constant('fixed' as const), units: quarters(1, 12) }),
  10,
);
/** About one step in four has a line asking for more than is available (often between available and on-hand). */
const over: fc.Arbitrary<Over> = weighted<Over>(fc.constant(null), fc.record({ at: fc.nat(), by: quarters(1, 4) }), 3);
const amountOf = (spec: { amount: Amount }, index: number, count: number, chosen: Over): Amount =>
  chosen !== null && chosen.at % count === index ? { mode: 'over', by: chosen.by } : spec.amount;

const reserveLine: fc.Arbitrary<ReserveLineSpec> = fc.record({
  sku: fc.constantFrom<Sku>('P1', 'P2', 'LOT', 'LOT'),
  loc,
  lot,
  oldest: fc.boolean(),
  amount,
  stocked: weighted(fc.constant(true), fc.constant(false), 10),
  pick: fc.nat(),
  byId: weighted(fc.constant(false), fc.constant(true), 3),
  flaw: weighted(fc.constant(false), fc.constant(true), 30),
});

const reserveStep = (past: boolean, chosenOver = over): fc.Arbitrary<Step> =>
  fc.record({
    kind: fc.constant('reserve' as const),
    past: fc.constant(past),
    reference: weighted(fc.constant('fresh' as const), fc.constant('taken' as const), 8),
    pick: fc.nat(),
    expiry: fc.constantFrom('absent' as const, 'null' as const, 'soon' as const, 'soon' as const, 'later' as const),
    lines: fc.array(reserveLine, { minLength: 1, maxLength: 3 }),
    over: chosenOver,
    replay: weighted(fc.constant(false), fc.constant(true), 4),
  });

const settleStep = (action: SettleStep['action']): fc.Arbitrary<Step> =>
  fc.record({
    kind: fc.constant('settle' as const),
    action: fc.constant(action),
    target: fc.oneof(
      { arbitrary: fc.constant('active' as const), weight: 10 },
      { arbitrary: fc.constant('short' as const), weight: 4 },
      { arbitrary: fc.constant('any' as const), weight: 3 },
      { arbitrary: fc.constant('unknown' as const), weight: 1 },
    ),
    pick: fc.nat(),
    body: fc.oneof(
      { arbitrary: fc.constantFrom<SettleBody>('none', 'empty', 'all'), weight: 4 },
      { arbitrary: fc.constant<SettleBody>('partial'), weight: 5 },
      { arbitrary: fc.constantFrom<SettleBody>('over', 'twice'), weight: 2 },
      { arbitrary: fc.constant<SettleBody>('unknown-line'), weight: 1 },
    ),
    share: fc.constantFrom(0.25, 0.5, 0.75),
    which: fc.nat(),
    replay: weighted(fc.constant(false), fc.constant(true), 4),
  });

const stockLine: fc.Arbitrary<StockLineSpec> = fc.record({
  sku: fc.constantFrom<Sku>('P1', 'P2', 'LOT', 'LOT'),
  loc,
  lot,
  amount,
  negative: fc.boolean(),
  counted: fc.constantFrom('zero' as const, 'under-reserved' as const, 'under-reserved' as const, 'units' as const),
  units: quarters(2, 16),
  by: quarters(0, 4),
  stocked: weighted(fc.constant(true), fc.constant(false), 4),
  pick: fc.nat(),
  expectation: fc.constantFrom('right' as const, 'right' as const, 'null' as const),
});

const stockStep = (door: StockStep['door'], route: StockChangeRoute, lines = fc.array(stockLine, { minLength: 1, maxLength: 3 })): fc.Arbitrary<StockStep> =>
  fc.record({
    kind: fc.constant('stock' as const),
    door: fc.constant(door),
    route: fc.constant(route),
    location: loc,
    backdated: route === 'receipts' ? weighted(fc.constant(false), fc.constant(true), 4) : fc.constant(false),
    lines,
    over,
  });

const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: reserveStep(false), weight: 8 },
  { arbitrary: reserveStep(true), weight: 4 },
  { arbitrary: settleStep('release'), weight: 5 },
  { arbitrary: settleStep('fulfil'), weight: 6 },
  { arbitrary: stockStep('json', 'adjustments'), weight: 3 },
  { arbitrary: stockStep('json', 'transfers'), weight: 3 },
  { arbitrary: stockStep('json', 'counts'), weight: 4 },
  { arbitrary: stockStep('json', 'receipts'), weight: 3 },
  { arbitrary: fc.constantFrom<StockChangeRoute>('adjustments', 'transfers', 'counts', 'receipts').chain((route) => stockStep('import', route)), weight: 2 },
  { arbitrary: fc.constant<Step>({ kind: 'sweep' }), weight: 3 },
);

/** An opening receipt of 3 or 4 lines (so that later steps find stock, lots among it) and a reservation of what is there, then 6 to 11 steps. */
const steps = fc
  .tuple(
    stockStep('json', 'receipts', fc.array(stockLine, { minLength: 3, maxLength: 4 })),
    reserveStep(false, fc.constant(null)),
    fc.array(step, { minLength: 6, maxLength: 11 }),
  )
  .map(([opening, reservation, rest]): Step[] => [opening, reservation, ...rest]);

const reorderPoint = fc.integer({ min: 1, max: 8 }).map((halves) => halves * (MICRO / 2));
const reorderPoints = fc.record({ P1: reorderPoint, P2: fc.option(reorderPoint, { nil: null }), LOT: fc.option(reorderPoint, { nil: null }) });

// ---------------------------------------------------------------------------------------------
// The model: what docs/inventory.md says each step does

/** An event as compared: ids replaced by skus, location codes and reservation references, quantities in micro-units. */
type Seen =
  | {
      type: 'movement.created';
      movementType: string;
      sku: string;
      from: string | null;
      to: string | null;
      quantity: number;
      lot: string | null;
      reference: string | null;
    }
  | {
      type: 'stock.changed';
      sku: string;
      locationCode: string;
      lot: string | null;
      previousQuantity: number;
      quantity: number;
      delta: number;
      previousReserved: number;
      reserved: number;
      previousAvailable: number;
      available: number;
      movement: boolean;
      reservation: string | null;
    }
  | { type: 'low-stock'; sku: string; onHand: number; reserved: number; available: number; reorderPoint: number };

interface ModelLine {
  lineId: string;
  place: Place;
  quantity: number;
  fulfilled: number;
  released: number;
}
interface ModelReservation {
  id: string;
  reference: string;
  status: 'active' | 'released' | 'fulfilled' | 'expired';
  /** ISO 8601 UTC as stored; for the 24 h default, taken from the answer (and checked against createdAt). */
  expiresAt: string;
  lines: ModelLine[];
}
const leftOf = (line: Pick<ModelLine, 'quantity' | 'fulfilled' | 'released'>) => line.quantity - line.fulfilled - line.released;

interface ShortLine {
  line: number;
  stockRecordId: string | null;
  available: number;
  requested: number;
}
const shortLine = (line: number, stockRecordId: string | null, available: number, requested: number): ShortLine => ({
  line,
  stockRecordId,
  available: decimal(available),
  requested: decimal(requested),
});

/** A request line of a reservation as sent: `lot` null is none (a plain item, or the oldest lots of a lot item). */
interface ReserveRequestLine {
  sku: Sku;
  loc: Loc;
  lot: string | null;
  quantity: number;
  byId: boolean;
}

/** A line of a stock change (or a row of a file) as sent. */
interface StockRequestLine {
  place: Place;
  /** Transfers: the destination. */
  to: Loc;
  /** Adjustments: the signed delta; counts: the counted quantity; otherwise the quantity (micro-units). */
  quantity: number;
  /** Micro-units, or null (sent as null; receipts: left out). */
  expected: number | null;
}

/** A line of a stock change's 201 as compared. */
interface AnsweredLine {
  line: number;
  sku: string;
  locationCode: string;
  lot: string | null;
  previousQuantity: number;
  quantity: number;
  delta: number;
  reserved: number;
  available: number;
  moved: boolean;
}

type Expected =
  | { status: 200 | 201; events: Seen[] }
  | { status: 400; errors: Array<{ pointer: string; code: string }> }
  | { status: 404 | 409; code: string; extensions: Record<string, unknown> };

const conflict = (code: string, extensions: Record<string, unknown>): Expected => ({ status: 409, code, extensions });

class Model {
  readonly onHand = new Map<string, number>();
  readonly reservedAt = new Map<string, number>();
  /** Places a movement touched: exactly those have a stock record. */
  readonly touched = new Set<string>();
  /** The step whose movement created each place's record, and whether that movement was dated RECEIVED_AT. */
  readonly createdIn = new Map<string, { step: number; backdated: boolean }>();
  /** Each stored record's receipt order (createdAt, then id), learned when it first appears. */
  readonly receiptOrder = new Map<string, { createdAt: string; id: string }>();
  readonly reservations: ModelReservation[] = [];
  step = 0;

  constructor(private readonly reorderPoints: Record<Sku, number | null>) {}

  at(place: Place): number {
    return this.onHand.get(placeKey(place)) ?? 0;
  }

  reserved(place: Place): number {
    return this.reservedAt.get(placeKey(place)) ?? 0;
  }

  available(place: Place): number {
    return this.at(place) - this.reserved(place);
  }

  totals(sku: Sku): { onHand: number; reserved: number } {
    let onHand = 0;
    let reserved = 0;
    for (const place of PLACES) {
      if (place.sku !== sku) continue;
      onHand += this.at(place);
      reserved += this.reserved(place);
    }
    return { onHand, reserved };
  }

  /** The places holding something on hand, in a fixed order. */
  stocked(filter: (place: Place) => boolean = () => true): Place[] {
    return PLACES.filter((place) => this.at(place) > 0 && filter(place));
  }

  /** The lots of a lot item at `loc` whose record exists, in receipt order. */
  lotsInReceiptOrder(loc: Loc): string[] {
    return PLACES.filter((place) => place.sku === 'LOT' && place.loc === loc && this.touched.has(placeKey(place)))
      .map((place) => ({ place, order: this.receiptOrder.get(placeKey(place)) }))
      .sort((a, b) => (a.order?.createdAt ?? '').localeCompare(b.order?.createdAt ?? '') || (a.order?.id ?? '').localeCompare(b.order?.id ?? ''))
      .map(({ place }) => place.lot);
  }

  private snapshot() {
    const saved = { onHand: new Map(this.onHand), reservedAt: new Map(this.reservedAt), touched: new Set(this.touched), createdIn: new Map(this.createdIn) };
    return () => {
      for (const [target, source] of [
        [this.onHand, saved.onHand],
        [this.reservedAt, saved.reservedAt],
        [this.createdIn, saved.createdIn],
      ] as const) {
        (target as Map<string, unknown>).clear();
        for (const [key, value] of source as Map<string, unknown>) (target as Map<string, unknown>).set(key, value);
      }
      this.touched.clear();
      for (const key of saved.touched) this.touched.add(key);
    };
  }

  /** `low-stock` when the item's available crossed from at least its reorder point to below it. */
  private lowStock(events: Seen[], sku: Sku, before: { onHand: number; reserved: number }) {
    const point = this.reorderPoints[sku];
    const after = this.totals(sku);
    const available = after.onHand - after.reserved;
    if (point !== null && before.onHand - before.reserved >= point && available < point)
      events.push({ type: 'low-stock', sku, onHand: after.onHand, reserved: after.reserved, available, reorderPoint: point });
  }

  private changed(events: Seen[], place: Place, delta: number, reservedDelta: number, movement: boolean, reservation: string | null) {
    const key = placeKey(place);
    const [previousQuantity, previousReserved] = [this.at(place), this.reserved(place)];
    const [quantity, reserved] = [previousQuantity + delta, previousReserved + reservedDelta];
    this.onHand.set(key, quantity);
    this.reservedAt.set(key, reserved);
    events.push({
      type: 'stock.changed',
      sku: place.sku,
      locationCode: place.loc,
      lot: nullable(place.lot),
      previousQuantity,
      quantity,
      delta,
      previousReserved,
      reserved,
      previousAvailable: previousQuantity - previousReserved,
      available: quantity - reserved,
      movement,
      reservation,
    });
  }

  /** A movement: its events; a shipment (of `reservation`) takes reserved with on-hand. */
  private move(
    events: Seen[],
    movement: { type: string; sku: Sku; quantity: number; reference: string; from?: Place; to?: Place; reservation?: string; backdated?: boolean },
  ) {
    const before = this.totals(movement.sku);
    events.push({
      type: 'movement.created',
      movementType: movement.type,
      sku: movement.sku,
      from: movement.from?.loc ?? null,
      to: movement.to?.loc ?? null,
      quantity: movement.quantity,
      lot: nullable((movement.from ?? movement.to)?.lot ?? ''),
      reference: movement.reference,
    });
    const legs: Array<[Place, number]> = [];
    if (movement.from) legs.push([movement.from, -movement.quantity]);
    if (movement.to) legs.push([movement.to, movement.quantity]);
    for (const [place, delta] of legs) {
      const key = placeKey(place);
      if (!this.touched.has(key)) this.createdIn.set(key, { step: this.step, backdated: movement.backdated ?? false });
      this.touched.add(key);
      this.changed(events, place, delta, movement.reservation !== undefined && delta < 0 ? delta : 0, true, movement.reservation ?? null);
    }
    this.lowStock(events, movement.sku, before);
  }

  /** A hold (> 0) or a release (< 0): reserved moves, on-hand stays, no movement. */
  private hold(events: Seen[], place: Place, quantity: number, reservation: string) {
    const before = this.totals(place.sku);
    this.changed(events, place, 0, quantity, false, reservation);
    this.lowStock(events, place.sku, before);
  }

  // -------------------------------------------------------------------------------------------
  // Stock changes and import rows: each line on the stock as earlier lines left it

  /** One line (or row) of a stock change; its answered legs, or the short line when it would take more than is available. */
  private decideLine(
    route: StockChangeRoute,
    line: StockRequestLine,
    index: number,
    reference: string,
    events: Seen[],
    backdated: boolean,
    recordIds: ReadonlyMap<string, string>,
  ): { ok: true; answered: AnsweredLine[] } | { ok: false; short: ShortLine } {
    const { place } = line;
    const answered = (legs: Place[], previous: number[], moved: boolean): AnsweredLine[] =>
      legs.map((leg, legIndex) => {
        const before = previous[legIndex] ?? 0;
        return {
          line: index,
          sku: leg.sku,
          locationCode: leg.loc,
          lot: nullable(leg.lot),
          previousQuantity: before,
          quantity: this.at(leg),
          delta: this.at(leg) - before,
          reserved: this.reserved(leg),
          available: this.available(leg),
          moved,
        };
      });
    const short = (requested: number) => ({
      ok: false as const,
      short: shortLine(index, recordIds.get(placeKey(place)) ?? null, this.available(place), requested),
    });
    const before = this.at(place);
    switch (route) {
      case 'adjustments': {
        const quantity = Math.abs(line.quantity);
        if (line.quantity < 0 && this.available(place) < quantity) return short(quantity);
        this.move(events, { type: 'adjustment', sku: place.sku, quantity, reference, ...(line.quantity < 0 ? { from: place } : { to: place }) });
        return { ok: true, answered: answered([place], [before], true) };
      }
      case 'transfers': {
        if (this.available(place) < line.quantity) return short(line.quantity);
        const to = { ...place, loc: line.to };
        const toBefore = this.at(to);
        this.move(events, { type: 'transfer', sku: place.sku, quantity: line.quantity, reference, from: place, to });
        return { ok: true, answered: answered([place, to], [before, toBefore], true) };
      }
      case 'counts': {
        const delta = line.quantity - before;
        if (delta !== 0)
          this.move(events, { type: 'count', sku: place.sku, quantity: Math.abs(delta), reference, ...(delta < 0 ? { from: place } : { to: place }) });
        return { ok: true, answered: answered([place], [before], delta !== 0) };
      }
      case 'receipts':
        this.move(events, { type: 'receipt', sku: place.sku, quantity: line.quantity, reference, to: place, backdated });
        return { ok: true, answered: answered([place], [before], true) };
    }
  }

  /** A JSON stock change: all lines or none; 409 insufficient-stock names every line that would take more than is available. */
  applyChange(
    route: StockChangeRoute,
    lines: StockRequestLine[],
    reference: string,
    backdated: boolean,
    recordIds: ReadonlyMap<string, string>,
  ): Expected & { lines?: AnsweredLine[] } {
    const restore = this.snapshot();
    const events: Seen[] = [];
    const answered: AnsweredLine[] = [];
    const short: ShortLine[] = [];
    lines.forEach((line, index) => {
      const decided = this.decideLine(route, line, index, reference, events, backdated, recordIds);
      if (decided.ok) answered.push(...decided.answered);
      else short.push(decided.short);
    });
    if (short.length > 0) {
      restore();
      return conflict('customer-api.stock.insufficient-stock', { lines: short });
    }
    return { status: 201, events, lines: answered };
  }

  /** An import: each row one unit, in order; a row that would take more than is available fails with insufficient-stock. */
  applyImport(
    route: StockChangeRoute,
    rows: StockRequestLine[],
    references: string[],
    backdated: boolean,
  ): { created: number; failed: number; errors: Map<number, string[]>; events: Seen[] } {
    const events: Seen[] = [];
    const errors = new Map<number, string[]>();
    rows.forEach((row, index) => {
      const decided = this.decideLine(route, row, index, references[index] ?? '', events, backdated, new Map());
      if (!decided.ok) errors.set(index + 1, ['insufficient-stock']);
    });
    return { created: rows.length - errors.size, failed: errors.size, errors, events };
  }

  // -------------------------------------------------------------------------------------------
  // Reservations

  /** POST /v1/reservations: reference taken, then lot rules (400), then every line held on what is available, or 409 naming the short ones. */
  reserve(
    reference: string,
    lines: ReserveRequestLine[],
    recordIds: ReadonlyMap<string, string>,
  ): Expected & { held?: Array<{ place: Place; quantity: number }> } {
    const taken = this.reservations.find((reservation) => reservation.reference === reference);
    if (taken) return conflict('customer-api.reservations.reference-taken', { reservationId: taken.id });
    const errors = lines.flatMap((line, index) =>
      !isLotTracked(line.sku) && line.lot !== null ? [{ pointer: `/lines/${index}/lot`, code: 'lot-not-allowed' }] : [],
    );
    if (errors.length > 0) return { status: 400, errors };

    const restore = this.snapshot();
    const events: Seen[] = [];
    const held: Array<{ place: Place; quantity: number }> = [];
    const short: ShortLine[] = [];
    lines.forEach((line, index) => {
      if (line.lot !== null || !isLotTracked(line.sku)) {
        const place = { sku: line.sku, loc: line.loc, lot: line.lot ?? '' };
        if (this.available(place) < line.quantity)
          return short.push(shortLine(index, recordIds.get(placeKey(place)) ?? null, this.available(place), line.quantity));
        this.hold(events, place, line.quantity, reference);
        return held.push({ place, quantity: line.quantity });
      }
      // The oldest lots first, each for what it has available, split across lots.
      const sides: Array<{ place: Place; quantity: number }> = [];
      let left = line.quantity;
      for (const lotOf of this.lotsInReceiptOrder(line.loc)) {
        if (left <= 0) break;
        const place = { sku: line.sku, loc: line.loc, lot: lotOf };
        if (this.at(place) <= 0) continue;
        const take = Math.min(left, this.available(place));
        if (take <= 0) continue;
        sides.push({ place, quantity: take });
        left -= take;
      }
      if (left > 0) return short.push(shortLine(index, null, line.quantity - left, line.quantity));
      for (const side of sides) this.hold(events, side.place, side.quantity, reference);
      return held.push(...sides);
    });
    if (short.length > 0) {
      restore();
      return conflict('customer-api.stock.insufficient-stock', { lines: short });
    }
    return { status: 201, events, held };
  }

  /** Records a reservation the product created, with the line ids it gave. */
  created(reservation: Reservation, held: Array<{ place: Place; quantity: number }>): void {
    this.reservations.push({
      id: reservation.id,
      reference: reservation.reference,
      status: 'active',
      expiresAt: reservation.expiresAt,
      lines: held.map((line, index) => ({
        lineId: reservation.lines[index]?.lineId ?? `missing line ${index}`,
        place: line.place,
        quantity: line.quantity,
        fulfilled: 0,
        released: 0,
      })),
    });
  }

  /**
   * A release, fulfilment or expiry of `reservation` (undefined: an unknown id): not found, not
   * active, unknown lines (400), more than a line has left (409), a shipment of more than is on
   * hand (409), else every line's amount, in the reservation's line order.
   */
  settle(
    reservation: ModelReservation | undefined,
    action: 'release' | 'fulfil' | 'expire',
    asked: Array<{ lineId: string; quantity: number }> | undefined,
    recordIds: ReadonlyMap<string, string>,
  ): Expected {
    if (!reservation) return { status: 404, code: 'customer-api.reservations.not-found', extensions: {} };
    if (reservation.status !== 'active') return conflict('customer-api.reservations.not-active', { reservationStatus: reservation.status });
    const amounts = new Map<string, number>();
    if (asked === undefined) {
      for (const line of reservation.lines) amounts.set(line.lineId, leftOf(line));
    } else {
      const errors: Array<{ pointer: string; code: string }> = [];
      const over: Array<{ lineId: string; requested: number; left: number }> = [];
      asked.forEach((ask, index) => {
        const line = reservation.lines.find((candidate) => candidate.lineId === ask.lineId);
        if (!line) return errors.push({ pointer: `/lines/${index}/lineId`, code: 'unknown-line' });
        const total = (amounts.get(ask.lineId) ?? 0) + ask.quantity;
        amounts.set(ask.lineId, total);
        if (total > leftOf(line)) over.push({ lineId: ask.lineId, requested: decimal(total), left: decimal(leftOf(line)) });
        return undefined;
      });
      if (errors.length > 0) return { status: 400, errors };
      if (over.length > 0) return conflict('customer-api.reservations.over-quantity', { lines: over });
    }
    const restore = this.snapshot();
    const events: Seen[] = [];
    const short: ShortLine[] = [];
    const settled = reservation.lines.map((line, index): ModelLine => {
      const quantity = amounts.get(line.lineId) ?? 0;
      if (quantity <= 0) return line;
      if (action === 'fulfil') {
        if (this.at(line.place) < quantity) {
          short.push(shortLine(index, recordIds.get(placeKey(line.place)) ?? null, this.at(line.place), quantity));
          return line;
        }
        this.move(events, {
          type: 'shipment',
          sku: line.place.sku,
          quantity,
          reference: reservation.reference,
          from: line.place,
          reservation: reservation.reference,
        });
        return { ...line, fulfilled: line.fulfilled + quantity };
      }
      this.hold(events, line.place, -quantity, reservation.reference);
      return { ...line, released: line.released + quantity };
    });
    if (short.length > 0) {
      restore();
      return conflict('customer-api.stock.insufficient-stock', { lines: short });
    }
    reservation.lines = settled;
    if (settled.every((line) => leftOf(line) === 0))
      reservation.status = action === 'expire' ? 'expired' : settled.some((line) => line.fulfilled > 0) ? 'fulfilled' : 'released';
    return { status: 200, events };
  }

  /** The sweep as of `now`: every active reservation due by then expires, the earliest first (then by id). */
  sweep(now: Date): { expired: number; events: Seen[] } {
    const due = this.reservations
      .filter((reservation) => reservation.status === 'active' && Date.parse(reservation.expiresAt) < now.getTime())
      .sort((a, b) => a.expiresAt.localeCompare(b.expiresAt) || a.id.localeCompare(b.id));
    const events: Seen[] = [];
    for (const reservation of due) {
      const expected = this.settle(reservation, 'expire', undefined, new Map());
      if ('events' in expected) events.push(...expected.events);
    }
    return { expired: due.length, events };
  }

  referenceOf(reservationId: string): string {
    return this.reservations.find((reservation) => reservation.id === reservationId)?.reference ?? `unknown reservation ${reservationId}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Working out what a step sends, from the model (that is, the stored stock) before it

function take(chosen: Amount, base: number): number {
  const available = Math.max(base, 0);
  switch (chosen.mode) {
    case 'share':
      return Math.max(QUARTER, Math.floor((available * chosen.share) / QUARTER) * QUARTER);
    case 'over':
      return available + chosen.by;
    case 'fixed':
      return chosen.units;
  }
}

const ownPlace = (spec: { sku: Sku; loc: Loc; lot: string }): Place => ({ sku: spec.sku, loc: spec.loc, lot: isLotTracked(spec.sku) ? spec.lot : '' });
const otherLoc = (of: Loc): Loc => (of === 'W1' ? 'W2' : 'W1');

/**
 * The lines a reservation step sends. A stocked line is on a place with something available (an
 * oldest-first line: any lot of the item at the location) after what earlier lines of the request
 * take, if there is one, and its share is of that: a request is short mostly where the step means
 * it to be (its `over` line).
 */
function reserveLinesOf(chosen: ReserveStep, model: Model): ReserveRequestLine[] {
  const left = new Map(PLACES.map((place) => [placeKey(place), Math.max(0, model.available(place))]));
  const leftAt = (place: Place) => left.get(placeKey(place)) ?? 0;
  const lotsAt = (place: Place) => model.lotsInReceiptOrder(place.loc).map((lotOf) => ({ ...place, lot: lotOf }));
  return chosen.lines.map((spec, index): ReserveRequestLine => {
    if (spec.flaw && !isLotTracked(spec.sku)) return { sku: spec.sku, loc: spec.loc, lot: 'L1', quantity: QUARTER, byId: spec.byId };
    const candidates = spec.stocked ? PLACES.filter((place) => leftAt(place) > 0 && (spec.oldest ? place.sku === 'LOT' : true)) : [];
    const place = candidates[spec.pick % Math.max(candidates.length, 1)] ?? ownPlace(spec);
    const oldest = isLotTracked(place.sku) && spec.oldest;
    const base = oldest ? lotsAt(place).reduce((sum, lotPlace) => sum + leftAt(lotPlace), 0) : leftAt(place);
    const quantity = take(amountOf(spec, index, chosen.lines.length, chosen.over), base);
    let taking = quantity;
    for (const drawn of oldest ? lotsAt(place) : [place]) {
      const taken = Math.min(taking, leftAt(drawn));
      left.set(placeKey(drawn), leftAt(drawn) - taken);
      taking -= taken;
    }
    return { sku: place.sku, loc: place.loc, lot: oldest ? null : nullable(place.lot), quantity, byId: spec.byId };
  });
}

/**
 * The lines a stock step sends, and (JSON counts) the count's location: a count whose first line
 * counts below what is reserved is at a place holding reservations, if there is one.
 */
function stockLinesOf(chosen: StockStep, model: Model): { location: Loc; lines: StockRequestLine[] } {
  const reservedPlaces = model.stocked((place) => model.reserved(place) > 0);
  const first = chosen.lines[0];
  const location =
    first?.counted === 'under-reserved' && reservedPlaces.length > 0 ? (reservedPlaces[first.pick % reservedPlaces.length] as Place).loc : chosen.location;
  const atCount = (place: Place) => chosen.route !== 'counts' || chosen.door === 'import' || place.loc === location;
  const drawn = new Set<string>();
  const lines = chosen.lines.map((spec, index): StockRequestLine => {
    const own = chosen.route === 'counts' && chosen.door === 'json' ? ownPlace({ ...spec, loc: location }) : ownPlace(spec);
    const takes = chosen.route === 'transfers' || (chosen.route === 'adjustments' && spec.negative);
    let candidates: Place[] = [];
    if (spec.stocked && takes) candidates = model.stocked((place) => !drawn.has(placeKey(place)));
    if (spec.stocked && chosen.route === 'counts') {
      const reserved = reservedPlaces.filter(atCount);
      candidates = spec.counted === 'under-reserved' && reserved.length > 0 ? reserved : model.stocked(atCount);
    }
    const place = candidates[spec.pick % Math.max(candidates.length, 1)] ?? own;
    drawn.add(placeKey(place));
    const expected = spec.expectation === 'right' ? model.at(place) : null;
    const taken = () => take(amountOf(spec, index, chosen.lines.length, chosen.over), model.available(place));
    switch (chosen.route) {
      case 'adjustments':
        return { place, to: place.loc, quantity: spec.negative ? -taken() : spec.units, expected };
      case 'transfers':
        return { place, to: otherLoc(place.loc), quantity: taken(), expected };
      case 'counts': {
        const reserved = model.reserved(place);
        const counted =
          spec.counted === 'zero' ? 0 : spec.counted === 'under-reserved' && reserved > 0 ? Math.max(0, reserved - QUARTER - spec.by) : spec.units;
        return { place, to: place.loc, quantity: counted, expected };
      }
      case 'receipts':
        return { place, to: place.loc, quantity: spec.units, expected };
    }
  });
  return { location, lines };
}

interface Ids {
  items: Map<Sku, string>;
  locations: Map<Loc, string>;
  codeOf: Map<string, string>;
}

function reserveBody(reference: string, expiresAt: string | null | undefined, lines: ReserveRequestLine[], ids: Ids) {
  return {
    reference,
    ...(expiresAt === undefined ? {} : { expiresAt }),
    lines: lines.map((line) => ({
      ...(line.byId ? { itemId: ids.items.get(line.sku) } : { sku: line.sku }),
      ...(line.byId ? { locationId: ids.locations.get(line.loc) } : { locationCode: line.loc }),
      ...(line.lot === null ? {} : { lot: line.lot }),
      quantity: decimal(line.quantity),
    })),
  };
}

function stockBody(route: StockChangeRoute, reference: string, chosen: StockStep, location: Loc, lines: StockRequestLine[]) {
  const lotOf = (place: Place) => (place.lot === '' ? {} : { lot: place.lot });
  const expectedQuantity = (line: StockRequestLine) => ({ expectedQuantity: line.expected === null ? null : decimal(line.expected) });
  switch (route) {
    case 'adjustments':
      return {
        reference,
        reason: 'property',
        lines: lines.map((line) => ({
          sku: line.place.sku,
          locationCode: line.place.loc,
          ...lotOf(line.place),
          quantityDelta: decimal(line.quantity),
          ...expectedQuantity(line),
        })),
      };
    case 'transfers':
      return {
        reference,
        lines: lines.map((line) => ({
          sku: line.place.sku,
          fromLocationCode: line.place.loc,
          toLocationCode: line.to,
          ...lotOf(line.place),
          quantity: decimal(line.quantity),
          ...expectedQuantity(line),
        })),
      };
    case 'counts':
      return {
        countReference: reference,
        locationCode: location,
        lines: lines.map((line) => ({ sku: line.place.sku, ...lotOf(line.place), countedQuantity: decimal(line.quantity), ...expectedQuantity(line) })),
      };
    case 'receipts':
      return {
        poNumber: reference,
        ...(chosen.backdated ? { receivedAt: RECEIVED_AT } : {}),
        lines: lines.map((line) => ({
          sku: line.place.sku,
          locationCode: line.place.loc,
          ...lotOf(line.place),
          quantity: decimal(line.quantity),
          ...(line.expected === null ? {} : expectedQuantity(line)),
        })),
      };
  }
}

const IMPORT_KIND: Record<StockChangeRoute, string> = {
  adjustments: 'stock-adjustments',
  transfers: 'stock-transfers',
  counts: 'stock-counts',
  receipts: 'po-receipts',
};

function importFile(route: StockChangeRoute, rows: StockRequestLine[], references: string[], backdated: boolean): string {
  switch (route) {
    case 'adjustments':
      return csvOf(
        ['reference', 'sku', 'locationCode', 'quantityDelta', 'lot', 'reason'],
        rows.map((row, index) => [references[index] ?? '', row.place.sku, row.place.loc, String(decimal(row.quantity)), row.place.lot, 'property']),
      );
    case 'transfers':
      return csvOf(
        ['reference', 'sku', 'fromLocationCode', 'toLocationCode', 'quantity', 'lot'],
        rows.map((row, index) => [references[index] ?? '', row.place.sku, row.place.loc, row.to, String(decimal(row.quantity)), row.place.lot]),
      );
    case 'counts':
      return csvOf(
        ['countReference', 'locationCode', 'sku', 'countedQuantity', 'lot'],
        rows.map((row, index) => [references[index] ?? '', row.place.loc, row.place.sku, String(decimal(row.quantity)), row.place.lot]),
      );
    case 'receipts':
      return csvOf(
        ['poNumber', 'sku', 'locationCode', 'quantity', 'lot', 'receivedAt'],
        rows.map((row, index) => [
          references[index] ?? '',
          row.place.sku,
          row.place.loc,
          String(decimal(row.quantity)),
          row.place.lot,
          backdated ? RECEIVED_AT : '',
        ]),
      );
  }
}

// ---------------------------------------------------------------------------------------------
// Answers

interface Outcome {
  status: number;
  body: Record<string, unknown>;
  text: string;
}

const outcomeOf = (answer: HandlerAnswer): Outcome => ({ status: answer.status, body: (answer.json ?? {}) as Record<string, unknown>, text: answer.text });

/** A command's result or refusal, as its route would answer it. */
async function outcomeOfCommand(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    const result = await run();
    return { status: 201, body: JSON.parse(JSON.stringify(result)) as Record<string, unknown>, text: JSON.stringify(result) };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, body: { code: error.code, ...error.extensions }, text: `${error.code} ${JSON.stringify(error.extensions)}` };
  }
}

/**
 * A reservation route called once, or (replay) twice under the same Idempotency-Key: the second
 * answer is the first (a 2xx byte for byte, as stored; a refusal, which nothing stored, decided
 * again on the same stock: the same problem), and moves nothing more (the step's events show it).
 */
async function sentWithReplay(
  key: string,
  action: 'create' | 'release' | 'fulfil',
  request: { id?: string; body?: unknown },
  replay: boolean,
  label: string,
): Promise<Outcome> {
  const idempotencyKey = randomUUID();
  const first = await callReservationRoute(key, action, { ...request, idempotencyKey });
  if (replay) {
    const again = await callReservationRoute(key, action, { ...request, idempotencyKey });
    const problem = (answer: HandlerAnswer) => {
      const { traceId: _traceId, instance: _instance, ...rest } = (answer.json ?? {}) as Record<string, unknown>;
      return rest;
    };
    if (first.status < 300) expect({ status: again.status, text: again.text }, `${label}: replayed`).toEqual({ status: first.status, text: first.text });
    else expect({ status: again.status, problem: problem(again) }, `${label}: replayed`).toEqual({ status: first.status, problem: problem(first) });
  }
  return outcomeOf(first);
}

const byPointer = (errors: ReadonlyArray<{ pointer: string; code: string }>) =>
  errors.map(({ pointer, code }) => ({ pointer, code })).sort((a, b) => a.pointer.localeCompare(b.pointer) || a.code.localeCompare(b.code));

/** Status and, for a refusal, its code, extensions (or 400 pointers); success bodies are checked by the caller. */
function expectOutcome(outcome: Outcome, expected: Expected, label: string): void {
  expect(outcome.status, `${label}: status of ${outcome.text}`).toBe(expected.status);
  if (expected.status === 400) {
    expect(outcome.body.code, label).toBe('customer-api.validation.failed');
    expect(byPointer((outcome.body.errors ?? []) as Array<{ pointer: string; code: string }>), `${label}: 400 pointers`).toEqual(byPointer(expected.errors));
  } else if (expected.status === 404 || expected.status === 409) {
    expect(outcome.body.code, `${label}: code`).toBe(expected.code);
    expect(outcome.body, `${label}: problem`).toMatchObject(expected.extensions);
  }
}

interface ReservationAnswer {
  id: string;
  reference: string;
  status: string;
  expiresAt: string;
  createdAt: string;
  lines: Array<{
    lineId: string;
    sku: string;
    locationCode: string;
    lot: string | null;
    stockRecordId: string;
    quantity: number;
    fulfilledQuantity: number;
    releasedQuantity: number;
  }>;
}

/** A reservation as compared with the model: its lines' places and quantities (micro-units). */
function reservationView(reservation: ReservationAnswer) {
  return {
    id: reservation.id,
    reference: reservation.reference,
    status: reservation.status,
    expiresAt: reservation.expiresAt,
    lines: reservation.lines.map((line) => ({
      lineId: line.lineId,
      sku: line.sku,
      locationCode: line.locationCode,
      lot: line.lot,
      stockRecordId: line.stockRecordId,
      quantity: micro(line.quantity),
      fulfilled: micro(line.fulfilledQuantity),
      released: micro(line.releasedQuantity),
    })),
  };
}

function modelView(reservation: ModelReservation, recordIds: ReadonlyMap<string, string>) {
  return {
    id: reservation.id,
    reference: reservation.reference,
    status: reservation.status,
    expiresAt: reservation.expiresAt,
    lines: reservation.lines.map((line) => ({
      lineId: line.lineId,
      sku: line.place.sku,
      locationCode: line.place.loc,
      lot: nullable(line.place.lot),
      stockRecordId: recordIds.get(placeKey(line.place)) ?? `no record at ${placeKey(line.place)}`,
      quantity: line.quantity,
      fulfilled: line.fulfilled,
      released: line.released,
    })),
  };
}

// ---------------------------------------------------------------------------------------------
// Reading what was stored

const codeOf = (ids: Ids, locationId: unknown) => (locationId === null ? null : (ids.codeOf.get(String(locationId)) ?? `unknown ${String(locationId)}`));

function seen(ids: Ids, model: Model, event: EventEnvelope): Seen {
  const data = event.data;
  switch (event.type) {
    case 'movement.created': {
      const movement = data.movement as {
        type: string;
        sku: string;
        fromLocationId: string | null;
        toLocationId: string | null;
        quantity: number;
        lot: string | null;
        reference: string | null;
      };
      return {
        type: 'movement.created',
        movementType: movement.type,
        sku: movement.sku,
        from: codeOf(ids, movement.fromLocationId),
        to: codeOf(ids, movement.toLocationId),
        quantity: micro(movement.quantity),
        lot: movement.lot,
        reference: movement.reference,
      };
    }
    case 'stock.changed':
      return {
        type: 'stock.changed',
        sku: String(data.sku),
        locationCode: String(data.locationCode),
        lot: data.lot as string | null,
        previousQuantity: micro(Number(data.previousQuantity)),
        quantity: micro(Number(data.quantity)),
        delta: micro(Number(data.delta)),
        previousReserved: micro(Number(data.previousReserved)),
        reserved: micro(Number(data.reserved)),
        previousAvailable: micro(Number(data.previousAvailable)),
        available: micro(Number(data.available)),
        movement: data.movementId !== null,
        reservation: data.reservationId === null ? null : model.referenceOf(String(data.reservationId)),
      };
    default:
      return {
        type: 'low-stock',
        sku: String(data.sku),
        onHand: micro(Number(data.onHand)),
        reserved: micro(Number(data.reserved)),
        available: micro(Number(data.available)),
        reorderPoint: micro(Number(data.reorderPoint)),
      };
  }
}

const COMPARED = new Set(['movement.created', 'stock.changed', 'low-stock']);

interface Replayed {
  onHand: number;
  reserved: number;
  available: number;
  itemId: string;
  place: string;
}

/**
 * Replays the whole feed without the model. A movement's events are contiguous:
 * `movement.created`, its `stock.changed` legs (two for a transfer), then `low-stock` when the
 * item's total available crossed below its reorder point; a hold or release is one `stock.changed`
 * with no movement, delta 0 and a reservation, then maybe `low-stock`. Each record's changes chain
 * on `previousQuantity` and `previousReserved`; `available` is on-hand less reserved; only a count
 * takes available below zero (or further below).
 */
function replayFeed(events: readonly EventEnvelope[], reorderPoints: ReadonlyMap<string, number | null>): Map<string, Replayed> {
  const records = new Map<string, Replayed>();
  const totalOf = (itemId: string) => {
    let onHand = 0;
    let reserved = 0;
    for (const record of records.values()) {
      if (record.itemId !== itemId) continue;
      onHand += record.onHand;
      reserved += record.reserved;
    }
    return { onHand, reserved, available: onHand - reserved };
  };
  const relevant = events.filter((event) => COMPARED.has(event.type));
  const leg = (event: EventEnvelope, movement: { id: string; type: string } | null) => {
    const data = event.data as {
      stockRecordId: string;
      itemId: string;
      locationId: string;
      lot: string | null;
      previousQuantity: number;
      quantity: number;
      delta: number;
      previousReserved: number;
      reserved: number;
      previousAvailable: number;
      available: number;
      movementId: string | null;
      reservationId: string | null;
    };
    const what = `stock.changed of ${data.stockRecordId} (${movement ? `${movement.type} ${movement.id}` : `reservation ${data.reservationId}`})`;
    const place = stockRecordKey(data.itemId, data.locationId, data.lot);
    const previous = records.get(data.stockRecordId) ?? { onHand: 0, reserved: 0, available: 0, itemId: data.itemId, place };
    expect(previous.place, `${what}: place`).toBe(place);
    const [previousQuantity, previousReserved, quantity, reserved, delta] = [
      data.previousQuantity,
      data.previousReserved,
      data.quantity,
      data.reserved,
      data.delta,
    ].map(micro) as [number, number, number, number, number];
    expect({ previousQuantity, previousReserved }, `${what}: chains on the record's last change`).toEqual({
      previousQuantity: previous.onHand,
      previousReserved: previous.reserved,
    });
    expect(quantity, `${what}: quantity = previous + delta`).toBe(previousQuantity + delta);
    expect({ previousAvailable: micro(data.previousAvailable), available: micro(data.available) }, `${what}: available = on-hand − reserved`).toEqual({
      previousAvailable: previousQuantity - previousReserved,
      available: quantity - reserved,
    });
    expect(quantity, `${what}: on-hand`).toBeGreaterThanOrEqual(0);
    expect(reserved, `${what}: reserved`).toBeGreaterThanOrEqual(0);
    if (!movement) {
      expect({ delta, movementId: data.movementId, reservation: data.reservationId !== null }, `${what}: a hold or release`).toEqual({
        delta: 0,
        movementId: null,
        reservation: true,
      });
    } else if (movement.type === 'shipment') {
      expect(
        { reservedDelta: reserved - previousReserved, reservation: data.reservationId !== null },
        `${what}: a shipment takes reserved with on-hand`,
      ).toEqual({ reservedDelta: delta, reservation: true });
    } else {
      expect({ reserved, reservationId: data.reservationId }, `${what}: a movement leaves reserved`).toEqual({
        reserved: previousReserved,
        reservationId: null,
      });
    }
    const available = quantity - reserved;
    if (available < 0 && available < previousQuantity - previousReserved)
      expect(movement?.type, `${what}: only a count makes available negative (${previousQuantity - previousReserved} → ${available})`).toBe('count');
    records.set(data.stockRecordId, { onHand: quantity, reserved, available, itemId: data.itemId, place });
    return data.itemId;
  };
  for (let index = 0; index < relevant.length;) {
    const event = relevant[index] as EventEnvelope;
    index += 1;
    let itemId: string;
    let label: string;
    let before: ReturnType<typeof totalOf>;
    if (event.type === 'movement.created') {
      const movement = event.data.movement as { id: string; type: string; itemId: string };
      itemId = movement.itemId;
      label = `${movement.type} ${movement.id}`;
      before = totalOf(itemId);
      let legs = 0;
      for (let next = relevant[index]; next?.type === 'stock.changed' && next.data.movementId === movement.id; next = relevant[index]) {
        expect(leg(next, movement), `${label}: item`).toBe(itemId);
        legs += 1;
        index += 1;
      }
      expect(legs, `${label}: stock.changed legs`).toBe(movement.type === 'transfer' ? 2 : 1);
    } else {
      expect(
        event.type === 'stock.changed' && event.data.movementId === null,
        `event ${event.id} (${event.type} ${JSON.stringify(event.data)}) outside a movement or a hold`,
      ).toBe(true);
      itemId = String(event.data.itemId);
      label = `hold ${String(event.data.reservationId)}`;
      before = totalOf(itemId);
      leg(event, null);
    }
    const after = totalOf(itemId);
    const point = reorderPoints.get(itemId) ?? null;
    const next = relevant[index];
    const lowStock = next?.type === 'low-stock' ? next : undefined;
    if (point !== null && before.available >= point && after.available < point) {
      expect(lowStock?.data, `low-stock after ${label} (available ${before.available} → ${after.available}, reorder point ${point})`).toMatchObject({ itemId });
      expect(
        [lowStock?.data.onHand, lowStock?.data.reserved, lowStock?.data.available, lowStock?.data.reorderPoint].map((value) => micro(Number(value))),
        `low-stock after ${label}`,
      ).toEqual([after.onHand, after.reserved, after.available, point]);
      index += 1;
    } else {
      expect(lowStock?.data, `no low-stock after ${label} (available ${before.available} → ${after.available}, reorder point ${point})`).toBeUndefined();
    }
  }
  return records;
}

interface Stored {
  records: Map<string, StockRecord>;
  recordIds: Map<string, string>;
  available: Map<string, number>;
}

/**
 * Checks 1, 3 and 5 against what is stored, and check 2 between the previous step and this one
 * (`previous`: each place's available before; `counted`: the step was a count).
 */
async function expectStored(
  organizationId: string,
  ids: Ids,
  model: Model,
  context: { label: string; previous: ReadonlyMap<string, number>; counted: boolean; window: { from: string; to: string } },
): Promise<Stored> {
  const { label } = context;
  const keyOf = (place: Place) => stockRecordKey(ids.items.get(place.sku) ?? '', ids.locations.get(place.loc) ?? '', nullable(place.lot));
  const [found, totals, reservations] = await Promise.all([
    inventoryRecords().getByNaturalKeys(organizationId, 'stock-record', CHECKED_PLACES.map(keyOf)),
    importRecords().getByNaturalKeys(organizationId, 'item-stock', [...ids.items.values()]),
    storedReservations(organizationId),
  ]);
  // What the active reservations, as stored, have left on each record; a reservation that is not active holds nothing.
  const heldOn = new Map<string, number>();
  for (const reservation of reservations) {
    for (const line of reservation.lines) {
      const left = micro(line.quantity) - micro(line.fulfilledQuantity) - micro(line.releasedQuantity);
      expect(left, `${label}: what line ${line.lineId} of ${reservation.reference} has left`).toBeGreaterThanOrEqual(0);
      if (reservation.status === 'active') heldOn.set(line.stockRecordId, (heldOn.get(line.stockRecordId) ?? 0) + left);
      else expect(left, `${label}: ${reservation.status} reservation ${reservation.reference} holds nothing`).toBe(0);
    }
    if (reservation.status === 'active')
      expect(
        reservation.lines.some((line) => micro(line.quantity) - micro(line.fulfilledQuantity) - micro(line.releasedQuantity) > 0),
        `${label}: active ${reservation.reference} holds something`,
      ).toBe(true);
  }

  const records = new Map<string, StockRecord>();
  const recordIds = new Map<string, string>();
  const available = new Map<string, number>();
  for (const place of CHECKED_PLACES) {
    const key = placeKey(place);
    const record = found.get(keyOf(place))?.record as StockRecord | undefined;
    const what = `${label}: ${place.sku} at ${place.loc} in lot '${place.lot}'`;
    expect(record !== undefined, `${what}: a record exists`).toBe(model.touched.has(key));
    if (!record) continue;
    records.set(key, record);
    recordIds.set(key, record.id);
    const [onHand, reserved] = [micro(record.onHand), micro(record.reserved ?? 0)];
    expect({ onHand, reserved }, `${what}: on-hand and reserved (model)`).toEqual({ onHand: model.at(place), reserved: model.reserved(place) });
    expect(reserved, `${what}: reserved = what active reservations have left on ${record.id}`).toBe(heldOn.get(record.id) ?? 0);
    heldOn.delete(record.id);
    available.set(key, onHand - reserved);
    const before = context.previous.get(key) ?? 0;
    if (!context.counted && onHand - reserved < 0)
      expect(onHand - reserved, `${what}: only a count makes available negative (${before} before)`).toBeGreaterThanOrEqual(before);

    // Receipt order: createdAt is when the step that created the record ran (or a backdated receipt's date), and never changes.
    const order = model.receiptOrder.get(key);
    if (order) {
      expect({ createdAt: record.createdAt, id: record.id }, `${what}: createdAt and id stay`).toEqual(order);
    } else {
      const createdIn = model.createdIn.get(key);
      expect(createdIn?.step, `${what}: created by this step`).toBe(model.step);
      if (createdIn?.backdated) expect(record.createdAt, `${what}: createdAt of a backdated receipt`).toBe(new Date(RECEIVED_AT).toISOString());
      else
        expect(
          context.window.from <= record.createdAt && record.createdAt <= context.window.to,
          `${what}: createdAt ${record.createdAt} within the step (${context.window.from} – ${context.window.to})`,
        ).toBe(true);
      model.receiptOrder.set(key, { createdAt: record.createdAt, id: record.id });
    }
  }
  expect([...heldOn.keys()], `${label}: active reservation lines on records that do not exist`).toEqual([]);

  for (const [sku, itemId] of ids.items) {
    const total = totals.get(itemId)?.record as ItemStock | undefined;
    const mine = [...records.values()].filter((record) => record.itemId === itemId);
    const sums = {
      onHand: mine.reduce((sum, record) => sum + micro(record.onHand), 0),
      reserved: mine.reduce((sum, record) => sum + micro(record.reserved ?? 0), 0),
    };
    expect({ onHand: micro(total?.onHand ?? 0), reserved: micro(total?.reserved ?? 0) }, `${label}: item-stock of ${sku} is the sum of its records`).toEqual(
      sums,
    );
  }

  const storedById = new Map(reservations.map((reservation) => [reservation.id, reservationView(reservation as unknown as ReservationAnswer)]));
  expect(
    model.reservations.map((reservation) => storedById.get(reservation.id)),
    `${label}: the stored reservations`,
  ).toEqual(model.reservations.map((reservation) => modelView(reservation, recordIds)));
  expect(reservations.length, `${label}: no reservation the model does not know`).toBe(model.reservations.length);
  return { records, recordIds, available };
}

async function rowErrorsOf(organizationId: string, jobId: string): Promise<RowError[]> {
  const errors: RowError[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await importJobsStore().listRowErrors(organizationId, jobId, after, 200);
    errors.push(...page.errors);
    if (!page.more || page.last === undefined) return errors;
    after = page.last;
  }
}

// ---------------------------------------------------------------------------------------------

const RUNS = Number(process.env.RESERVATIONS_PROPERTY_RUNS ?? process.env.RUNS ?? 10);
const SEED = process.env.RESERVATIONS_PROPERTY_SEED === undefined ? undefined : Number(process.env.RESERVATIONS_PROPERTY_SEED);
const PREFIX: Record<StockChangeRoute, string> = { adjustments: 'ADJ', transfers: 'TR', counts: 'CNT', receipts: 'PO' };

describe('reservations mixed with every other stock write (property)', () => {
  it(
    'answers as the model says, keeps reserved equal to what active reservations have left, available = on-hand − reserved (negative only by a count), item totals and a feed that replays',
    { timeout: Math.max(120_000, RUNS * 15_000) },
    async () => {
      await fc.assert(
        fc.asyncProperty(reorderPoints, steps, async (points, chosenSteps) => {
          // Prepare: a fresh organization with a key, its items and locations
          const { key, record: apiKey } = await createTestKey({ scopes: ['stock:write', 'inventory:read'] });
          const { organizationId } = apiKey;
          const rp = (sku: Sku) => {
            const point = points[sku];
            return point === null ? '' : String(decimal(point));
          };
          const setup = [
            {
              kind: 'items',
              file: csvOf(
                ['sku', 'name', 'reorderPoint', 'trackingMode'],
                [
                  ['P1', 'Plain one', rp('P1'), 'none'],
                  ['P2', 'Plain two', rp('P2'), 'none'],
                  ['LOT', 'Lot tracked', rp('LOT'), 'lot'],
                ],
              ),
            },
            {
              kind: 'locations',
              file: csvOf(
                ['code', 'name', 'type'],
                LOCATIONS.map((code) => [code, `Warehouse ${code}`, 'warehouse']),
              ),
            },
          ];
          for (const { kind, file } of setup)
            expect((await runImportInProcess(organizationId, kind, file)).status, `${kind} job of the catalog`).toBe('succeeded');
          const [items, locations] = await Promise.all([itemsOf(organizationId, SKUS), locationsOf(organizationId, LOCATIONS)]);
          const ids: Ids = {
            items: new Map(SKUS.map((sku) => [sku, items.get(sku)?.record.id ?? ''])),
            locations: new Map(LOCATIONS.map((code) => [code, locations.get(code)?.record.id ?? ''])),
            codeOf: new Map([...locations.values()].map(({ record }) => [record.id, record.code])),
          };
          const itemPoints = new Map(SKUS.map((sku) => [ids.items.get(sku) ?? '', points[sku]]));
          const model = new Model(points);
          let stored: Stored = { records: new Map(), recordIds: new Map(), available: new Map() };
          let feedLength = (await feedOf(organizationId)).length;

          for (const [index, chosen] of chosenSteps.entries()) {
            model.step = index + 1;
            const from = new Date().toISOString();
            let label = `step ${index + 1}`;
            let expectedEvents: Seen[] = [];
            let counted = false;

            if (chosen.kind === 'reserve') {
              const lines = reserveLinesOf(chosen, model);
              const taken = model.reservations[chosen.pick % Math.max(model.reservations.length, 1)];
              const reference = chosen.reference === 'taken' && taken ? taken.reference : `RES-${index + 1}`;
              const now = Date.now();
              const expiresAt = chosen.past
                ? new Date(now + 15 * MINUTE).toISOString()
                : { absent: undefined, null: null, soon: new Date(now + 30 * MINUTE).toISOString(), later: new Date(now + 3 * DAY).toISOString() }[
                    chosen.expiry
                  ];
              const body = reserveBody(reference, expiresAt, lines, ids);
              label = `step ${index + 1} (${chosen.past ? 'reservation created two days ago' : 'POST /v1/reservations'} ${JSON.stringify(body)})`;

              // Act
              const outcome = chosen.past
                ? await outcomeOfCommand(() =>
                    reserveAsOf(
                      organizationId,
                      {
                        reference,
                        expiresAt: expiresAt ?? null,
                        lines: lines.map((line) => ({ sku: line.sku, locationCode: line.loc, lot: line.lot, quantity: decimal(line.quantity) })),
                      },
                      new Date(now - 2 * DAY),
                    ),
                  )
                : await sentWithReplay(key, 'create', { body }, chosen.replay, label);
              const expected = model.reserve(reference, lines, stored.recordIds);

              // Assess: the answer is the model's; a 201 holds the model's lines (lots oldest first) and reads back
              expectOutcome(outcome, expected, label);
              if (expected.status === 201 && 'held' in expected && expected.held) {
                const reservation = outcome.body as unknown as ReservationAnswer;
                model.created(reservation as unknown as Reservation, expected.held);
                const recordIds = new Map(stored.recordIds);
                expect(reservationView(reservation), `${label}: the reservation`).toEqual(modelView(model.reservations.at(-1) as ModelReservation, recordIds));
                if (expiresAt === undefined || expiresAt === null)
                  expect(Date.parse(reservation.expiresAt) - Date.parse(reservation.createdAt), `${label}: 24 h by default`).toBe(DAY);
                else expect(reservation.expiresAt, `${label}: expiresAt`).toBe(expiresAt);
                if (chosen.past) expect(Date.parse(reservation.createdAt), `${label}: created two days ago`).toBe(now - 2 * DAY);
                else {
                  expect(reservation.id, label).toMatch(/^res_/);
                  const read = await callReservationRoute(key, 'get', { id: reservation.id });
                  expect({ status: read.status, body: read.json }, `${label}: GET reads it back`).toEqual({ status: 200, body: outcome.body });
                }
                expectedEvents = expected.events;
              }
            } else if (chosen.kind === 'settle') {
              const active = model.reservations.filter((reservation) => reservation.status === 'active');
              const short = active.filter((reservation) => reservation.lines.some((line) => leftOf(line) > 0 && model.available(line.place) < 0));
              const pool = chosen.target === 'short' && short.length > 0 ? short : chosen.target !== 'any' && active.length > 0 ? active : model.reservations;
              const target = chosen.target === 'unknown' ? undefined : pool[chosen.pick % Math.max(pool.length, 1)];
              const id = target?.id ?? 'res_01KH8MP4807D4A2FX90YJXQ7VB';
              let asked: Array<{ lineId: string; quantity: number }> | undefined;
              const lines = target?.lines ?? [];
              const pickLine = (offset = 0) => lines[(chosen.which + offset) % Math.max(lines.length, 1)];
              const partOf = (left: number) => Math.max(QUARTER, Math.floor((left * chosen.share) / QUARTER) * QUARTER);
              switch (chosen.body) {
                case 'all':
                  asked = lines.filter((line) => leftOf(line) > 0).map((line) => ({ lineId: line.lineId, quantity: leftOf(line) }));
                  if (asked.length === 0) asked = undefined;
                  break;
                case 'partial':
                  asked = lines
                    .filter((_line, lineIndex) => ((chosen.which >> lineIndex) & 1) === 1 || lineIndex === chosen.which % lines.length)
                    .map((line) => ({ lineId: line.lineId, quantity: partOf(leftOf(line)) }));
                  break;
                case 'over': {
                  const line = pickLine();
                  asked = line ? [{ lineId: line.lineId, quantity: leftOf(line) + QUARTER }] : undefined;
                  break;
                }
                case 'twice': {
                  const line = pickLine();
                  asked = line
                    ? [
                        { lineId: line.lineId, quantity: partOf(leftOf(line)) },
                        { lineId: line.lineId, quantity: partOf(leftOf(line)) },
                      ]
                    : undefined;
                  break;
                }
                case 'unknown-line': {
                  const line = pickLine();
                  asked = [...(line ? [{ lineId: line.lineId, quantity: QUARTER }] : []), { lineId: 'rsl_01KH8MP4807D4A2FX90YJXQ7VB', quantity: QUARTER }];
                  break;
                }
                default:
                  asked = undefined;
              }
              if (asked?.length === 0) asked = undefined;
              const body = asked
                ? { lines: asked.map((ask) => ({ lineId: ask.lineId, quantity: decimal(ask.quantity) })) }
                : chosen.body === 'empty'
                  ? {}
                  : undefined;
              label = `step ${index + 1} (POST /v1/reservations/${target?.reference ?? 'unknown'}/${chosen.action} ${JSON.stringify(body)})`;

              // Act
              const outcome = await sentWithReplay(key, chosen.action, { id, body }, chosen.replay, label);
              const expected = model.settle(target, chosen.action, asked, stored.recordIds);

              // Assess: the answer is the model's; a 200 is the reservation as the model has it now
              expectOutcome(outcome, expected, label);
              if (expected.status === 200 && target) {
                expect(reservationView(outcome.body as unknown as ReservationAnswer), `${label}: the reservation`).toEqual(modelView(target, stored.recordIds));
                expectedEvents = expected.events;
              }
            } else if (chosen.kind === 'stock') {
              const { location, lines } = stockLinesOf(chosen, model);
              counted = chosen.route === 'counts';
              if (chosen.door === 'json') {
                const reference = `${PREFIX[chosen.route]}-${index + 1}`;
                const body = stockBody(chosen.route, reference, chosen, location, lines);
                label = `step ${index + 1} (POST /v1/stock/${chosen.route} ${JSON.stringify(body)})`;

                // Act
                const answer = await postStockChange(key, chosen.route, body);
                const expected = model.applyChange(chosen.route, lines, reference, chosen.backdated, stored.recordIds);

                // Assess: the answer is the model's, each line's reserved and available with it
                expectOutcome(outcomeOf(answer), expected, label);
                if (expected.status === 201) {
                  const answered = (
                    answer.json as {
                      lines: Array<{
                        line: number;
                        movementId: string | null;
                        sku: string;
                        locationCode: string;
                        lot: string | null;
                        previousQuantity: number;
                        quantity: number;
                        delta: number;
                        reserved: number;
                        available: number;
                      }>;
                    }
                  ).lines.map((line): AnsweredLine => ({
                    line: line.line,
                    sku: line.sku,
                    locationCode: line.locationCode,
                    lot: line.lot,
                    previousQuantity: micro(line.previousQuantity),
                    quantity: micro(line.quantity),
                    delta: micro(line.delta),
                    reserved: micro(line.reserved),
                    available: micro(line.available),
                    moved: line.movementId !== null,
                  }));
                  expect(answered, `${label}: the change's lines`).toEqual(expected.lines);
                  expectedEvents = expected.events;
                }
              } else {
                const references = lines.map((_line, row) => `${PREFIX[chosen.route]}-F${index + 1}-${row + 1}`);
                label = `step ${index + 1} (import ${IMPORT_KIND[chosen.route]}: ${importFile(chosen.route, lines, references, chosen.backdated).trim().replaceAll('\n', ' | ')})`;

                // Act
                const job = await runImportInProcess(organizationId, IMPORT_KIND[chosen.route], importFile(chosen.route, lines, references, chosen.backdated), {
                  duplicateStrategy: 'fail',
                });
                const expected = model.applyImport(chosen.route, lines, references, chosen.backdated);

                // Assess: the job's counts and row errors are the model's
                expect(job.counts, label).toEqual({
                  totalRows: lines.length,
                  processedRows: lines.length,
                  created: expected.created,
                  updated: 0,
                  skipped: 0,
                  failed: expected.failed,
                });
                expect(job.status, label).toBe(expected.failed > 0 ? 'completed_with_errors' : 'succeeded');
                const codes = new Map<number, string[]>();
                for (const error of await rowErrorsOf(organizationId, job.id))
                  codes.set(error.rowNumber, [...(codes.get(error.rowNumber) ?? []), error.code].sort());
                expect(codes, `${label}: row errors`).toEqual(expected.errors);
                expectedEvents = expected.events;
              }
            } else {
              const now = new Date(Date.now() + SWEEP_AHEAD);
              label = `step ${index + 1} (the expiry sweep as of ${now.toISOString()})`;

              // Act
              const counts = await sweepOrganization(organizationId, now);
              const expected = model.sweep(now);

              // Assess: every due reservation, and only those, expired
              expect({ expired: counts.expired, skipped: counts.skipped, errors: counts.errors, failures: counts.failures.map(String) }, label).toEqual({
                expired: expected.expired,
                skipped: 0,
                errors: 0,
                failures: [],
              });
              expectedEvents = expected.events;
            }

            // 1, 2, 3, 5: stored records, reserved against the stored reservations, totals, the reservations themselves
            stored = await expectStored(organizationId, ids, model, {
              label,
              previous: stored.available,
              counted,
              window: { from, to: new Date().toISOString() },
            });

            // 4. the whole feed replays to the stored on-hand and reserved; the step's events are the model's
            const feed = await feedOf(organizationId);
            const replayed = replayFeed(feed, itemPoints);
            for (const [place, record] of stored.records) {
              expect(replayed.get(record.id), `${label}: replayed ${place} (${record.id})`).toMatchObject({
                onHand: micro(record.onHand),
                reserved: micro(record.reserved ?? 0),
                available: micro(record.onHand) - micro(record.reserved ?? 0),
              });
            }
            expect(replayed.size, `${label}: stock.changed names only stored records`).toBe(stored.records.size);
            const fresh = feed.slice(feedLength);
            expect(
              fresh.filter((event) => COMPARED.has(event.type)).map((event) => seen(ids, model, event)),
              `${label}: events`,
            ).toEqual(expectedEvents);
            expectEventsMatchSchemas(fresh);
            // Each movement announced is stored as announced (a shipment's too): what GET /v1/movements/{id} and the ledger read.
            const announced = fresh
              .filter((event) => event.type === 'movement.created')
              .map((event) => ({ ...(event.data.movement as { id: string }), occurredAt: event.occurredAt }));
            const movements = await Promise.all(announced.map((movement) => movementById(tableName('inventory'), organizationId, movement.id)));
            expect(
              movements.map((movement) => (movement ? movementView(movement) : `no movement stored`)),
              `${label}: the movements announced are stored`,
            ).toEqual(announced);
            feedLength = feed.length;
          }

          // At the end: the ledger invariant on every record; the listed records are the feed's
          await Promise.all([...stored.records.values()].map((record) => expectLedgerMatches(organizationId, record)));
          expect(await listedStockRecords(organizationId, 10), 'listed stock records').toEqual(stockRecordsOfFeed(await feedOf(organizationId)));
        }),
        { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
      );
    },
  );
});
