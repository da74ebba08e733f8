import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../../lib/platform/events/types.ts';
import type { DuplicateStrategy, RowError } from '../../lib/imports/domain/types.ts';
import { stockRecordKey, type StockRecord } from '../../lib/inventory/domain/stock.ts';
import { adjustmentClaimKey, countClaimKey, receiptClaimKey, transferClaimKey } from '../../lib/stock/domain/claims.ts';
import type { ItemStock, StockEntry } from '../../lib/stock/domain/records.ts';
import { createTestKey } from '../support/api.ts';
import { csvOf, feedOf, importJobsStore, importRecords, inventoryRecords, itemsOf, locationsOf, runImportInProcess } from '../support/imports.ts';
import { expectEventsMatchSchemas, expectLedgerMatches, listedStockRecords, stockRecordsOfFeed } from '../support/stock.ts';
import { postStockChange, type HandlerAnswer, type StockChangeRoute } from '../support/stock-changes.ts';

/**
 * The two doors to stock, mixed (docs/inventory.md "Writing stock over JSON" and "Import kinds"):
 * generated sequences of JSON stock changes (`POST /v1/stock/adjustments`, `/transfers`,
 * `/counts`, `/receipts`, through their real handlers with a real API key, in process) and
 * imports of the four matching stock kinds (the real worker pipeline, in process), on the local
 * stack, against a model.
 *
 * Each run makes a fresh organization with a small catalog (two plain items with reorder points,
 * one item tracked by lot, three locations), then 4 to 10 steps. An import step is a file of one
 * stock kind with a few random rows (going negative, missing or unwanted lots, rare unknown skus
 * and locations, references repeated within and across files, a random duplicateStrategy). A JSON
 * step is a change of one kind with 1 to 4 random lines: mostly on places that hold stock when it
 * is sent, taking a share of it or (sometimes) twice what is there, items and locations named by
 * natural key or by id, a random `expectedQuantity` per line (the stored on-hand, a wrong one,
 * `null`, or absent where a receipt may leave it out), references drawn from the same small pools
 * as the files' (or fresh), so natural keys meet across the doors and within a change, and rarely
 * a lot-rule breach, an unknown sku or location, or a transfer to its own source. Some JSON steps
 * are sent twice under the same Idempotency-Key at once; a resend step sends an earlier request
 * again, later, under its key (a 201 is answered as stored; a refusal, which nothing stored, is
 * decided again on the stock as it is then).
 *
 * The model predicts every JSON answer: 400 (unknown references, then lot rules and a transfer's
 * own source, every line's pointer at once), else 409 already-applied (every line whose natural
 * key either door applied before, with who applied it), else 409 quantity-stale (every line whose
 * expectedQuantity is not its first record's stored on-hand, all compared with the stock before
 * the change), else 409 insufficient-stock (every line that would take its record below zero,
 * the lines applied in order), else 201 with each line's records before and after; the precedence
 * is the order of `StockChangeCommand.apply` (lib/stock/domain/changes/command.ts). For imports it
 * predicts each row's outcome and the job's counts. After every step it proves:
 *
 * 1. the answer (status, code, the lines or pointers it names; the 201's lines, Location, kind,
 *    reference) or the job (status, counts, each row's error codes) is the model's; a replay under
 *    the same Idempotency-Key answers the same (a 201 byte for byte);
 * 2. all or nothing: on-hand at every item × location × lot place is the model's (a refused change
 *    moved nothing, an accepted one all its lines), a stock record exists exactly where a movement
 *    touched; the ledger invariant (on-hand = sum of the record's ledger, never below 0); each
 *    item's total is the sum of its records;
 * 3. the whole feed replays: each movement's `movement.created`, its `stock.changed` legs chained
 *    on each record's previous quantity, `low-stock` exactly when the item's total crossed below
 *    its reorder point; the replayed quantities are the stored on-hand;
 * 4. the step's events are the model's, in order (a refused change emits none), each valid
 *    against its schema; `GET /v1/stock-records`, paged, is what the feed's `stock.changed` rebuild.
 *
 * At the end of a run: each natural key was applied at most once across both doors — the
 * movements of the feed, grouped by the natural key they carry, are exactly the movements of that
 * key's one claim, whose applier (import job or stock change) and movement count are the model's.
 *
 * Quantities are quarters, so the model sums integers of 10^-6 units and never rounds.
 * STOCK_JSON_PROPERTY_RUNS (or RUNS, as test/integration/stock-property.test.ts reads) sets the
 * number of runs; STOCK_JSON_PROPERTY_SEED fixes the random start of fast-check.
 */

// ---------------------------------------------------------------------------------------------
// The catalog

const CATALOG_SKUS = ['P1', 'P2', 'LOT'] as const;
type CatalogSku = (typeof CATALOG_SKUS)[number];
type Sku = CatalogSku | 'GHOST';
const LOCATIONS = ['W1', 'W2', 'W3'] as const;
type Loc = (typeof LOCATIONS)[number];
type AnyLoc = Loc | 'W9';
const LOTS = ['L1', 'L2'] as const;
/** Every lot a stock record of the catalog could be asked for ('' is no lot). */
const ALL_LOTS = ['', ...LOTS] as const;

/** The references both doors draw from, per kind, so that natural keys meet across them. */
const REFERENCES = {
  adjustments: ['ADJ-1', 'ADJ-2'],
  transfers: ['TR-1', 'TR-2'],
  counts: ['CNT-1', 'CNT-2'],
  receipts: ['PO-1', 'PO-2'],
} as const satisfies Record<StockChangeRoute, readonly string[]>;
/** A past arrival, as a receipt may give it (a movement dated then, not when it commits). */
const RECEIVED_AT = '2026-01-05T10:00:00+01:00';

/** One unit of quantity in the model: 10^-6. */
const MICRO = 1_000_000;
const micro = (quantity: number) => Math.round(quantity * MICRO);
const decimal = (units: number) => String(units / MICRO);
const isLotTracked = (sku: Sku) => sku === 'LOT';
const nullable = (lot: string) => (lot === '' ? null : lot);
const placeKey = (of: string, loc: string, lot: string) => JSON.stringify([of, loc, lot]);

// ---------------------------------------------------------------------------------------------
// The generated steps

interface AdjustmentRow {
  reference: string;
  sku: Sku;
  location: AnyLoc;
  delta: number;
  lot: string;
  reason: string;
}
interface TransferRow {
  reference: string;
  sku: Sku;
  from: Loc;
  to: Loc;
  quantity: number;
  lot: string;
}
interface CountRow {
  countReference: string;
  location: Loc;
  sku: Sku;
  counted: number;
  lot: string;
}
interface ReceiptRow {
  poNumber: string;
  sku: Sku;
  location: AnyLoc;
  quantity: number;
  lot: string;
  receivedAt: string;
}

type ImportStep =
  | { door: 'import'; kind: 'stock-adjustments'; strategy: DuplicateStrategy; rows: AdjustmentRow[] }
  | { door: 'import'; kind: 'stock-transfers'; strategy: DuplicateStrategy; rows: TransferRow[] }
  | { door: 'import'; kind: 'stock-counts'; strategy: DuplicateStrategy; rows: CountRow[] }
  | { door: 'import'; kind: 'po-receipts'; strategy: DuplicateStrategy; rows: ReceiptRow[] };

/** What a JSON line sends as its `expectedQuantity`: the stored on-hand, a wrong one, `null`, or nothing (receipts only). */
type Expectation = 'right' | 'wrong' | 'null' | 'absent';

interface JsonLine {
  sku: Sku;
  /** Name the item by `itemId` (when it exists), else by `sku`. */
  itemById: boolean;
  /** Adjustments and receipts: the line's location; transfers: the source. Counts name theirs once, in the body. */
  loc: AnyLoc;
  /** Transfers: the destination. */
  to: AnyLoc;
  /** Name the locations by id (when they exist), else by code. */
  locById: boolean;
  lot: string;
  /** Send `"lot": null` for no lot (else leave it out). */
  nullLot: boolean;
  /** Adjustments: the signed delta; transfers and receipts: the quantity; counts: the counted quantity (micro-units). */
  quantity: number;
  expectation: Expectation;
  /** How far a wrong expectedQuantity is from the stored on-hand (micro-units; below it when it can be). */
  wrongBy: number;
  /**
   * Adjustments, transfers and counts: the line is on a place that holds stock when it is sent
   * (the `pick`-th of them, at the count's location for a count), if there is one, rather than on
   * its own item, location and lot.
   */
  stocked: boolean;
  pick: number;
  /** A stocked line that takes stock (a transfer, a negative adjustment) takes this share of what its place holds, rounded down to quarters (at least one); 2: twice as much. */
  share: number;
  /** Transfers: the destination is the source (a 400). */
  toSource: boolean;
  /** The line carries the step's flaw: it keeps its own place. */
  flawed: boolean;
}

interface JsonStep {
  door: 'json';
  route: StockChangeRoute;
  /** One of the shared references, or null: a fresh one. */
  reference: string | null;
  /** Adjustments only. */
  reason: string | null;
  /** Counts: the count's location. */
  location: AnyLoc;
  locationById: boolean;
  /** Receipts only. */
  receivedAt: string | null;
  lines: JsonLine[];
  /** Send it again under the same Idempotency-Key. */
  replay: boolean;
}

/**
 * An earlier JSON request (the `which`-th, modulo how many were sent) sent again, body and
 * Idempotency-Key as they were: a 201 is answered as stored, moving nothing; a refusal was not
 * stored under its key, so the request is decided again on the stock as it is now.
 */
interface ResendStep {
  door: 'resend';
  which: number;
}

type Step = ImportStep | JsonStep | ResendStep;

const weighted = <T>(common: fc.Arbitrary<T>, rare: fc.Arbitrary<T>, odds = 8) => fc.oneof({ arbitrary: common, weight: odds }, { arbitrary: rare, weight: 1 });
const quarters = (min: number, max: number) => fc.integer({ min, max }).map((count) => count * (MICRO / 4));
const strategy = fc.constantFrom<DuplicateStrategy>('skip', 'update', 'fail');
const sku = weighted(fc.constantFrom<Sku>('P1', 'P2', 'LOT'), fc.constant<Sku>('GHOST'), 25);
/** Mostly W1 (and lot L1 below), so that stock gathers where later steps look for it. */
const location = fc.constantFrom<Loc>('W1', 'W1', 'W2', 'W3');
const anyLocation = weighted<AnyLoc>(location, fc.constant<AnyLoc>('W9'), 25);
const otherThan = (loc: Loc, pick: number): Loc => {
  const others = LOCATIONS.filter((candidate) => candidate !== loc);
  return others[pick % others.length] as Loc;
};
/** Mostly the right lot for the sku; sometimes a missing or an unwanted one. */
const lotOf = (of: Sku, pick: string, mistake: boolean) => (isLotTracked(of) === mistake ? '' : pick);
const lotChoice = fc.record({ pick: fc.constantFrom<string>('L1', 'L1', 'L2'), mistake: weighted(fc.constant(false), fc.constant(true), 12) });
const fileRows = <T>(row: fc.Arbitrary<T>) => fc.array(row, { minLength: 1, maxLength: 4 });
const sharedReference = (route: StockChangeRoute) => fc.constantFrom(...REFERENCES[route]);

const adjustmentFile = fc.record({
  door: fc.constant('import' as const),
  kind: fc.constant('stock-adjustments' as const),
  strategy,
  rows: fileRows(
    fc
      .record({
        reference: sharedReference('adjustments'),
        sku,
        location: anyLocation,
        quantity: quarters(1, 12),
        negative: fc.boolean(),
        lot: lotChoice,
        reason: fc.constantFrom('', 'damaged'),
      })
      .map(({ quantity, negative, lot, ...row }): AdjustmentRow => ({
        ...row,
        delta: negative ? -quantity : quantity,
        lot: lotOf(row.sku, lot.pick, lot.mistake),
      })),
  ),
});

const transferFile = fc.record({
  door: fc.constant('import' as const),
  kind: fc.constant('stock-transfers' as const),
  strategy,
  rows: fileRows(
    fc
      .record({ reference: sharedReference('transfers'), sku, from: location, pick: fc.nat(), quantity: quarters(1, 16), lot: lotChoice })
      .map(({ lot, pick, ...row }): TransferRow => ({ ...row, to: otherThan(row.from, pick), lot: lotOf(row.sku, lot.pick, lot.mistake) })),
  ),
});

/** The rows of one countReference mostly share a location (the file's for that reference). */
const countFile = fc
  .record({
    strategy,
    locations: fc.record({ 'CNT-1': location, 'CNT-2': location }),
    rows: fileRows(
      fc.record({
        countReference: sharedReference('counts'),
        sku,
        counted: fc.oneof(quarters(0, 16), fc.constant(0)),
        lot: lotChoice,
        elsewhere: weighted(fc.constant(false), fc.constant(true), 6),
        pick: fc.nat(),
      }),
    ),
  })
  .map(({ strategy: chosen, locations, rows }): ImportStep => ({
    door: 'import',
    kind: 'stock-counts',
    strategy: chosen,
    rows: rows.map(({ countReference, sku: counted, lot, elsewhere, pick, ...row }) => {
      const home = locations[countReference as 'CNT-1' | 'CNT-2'];
      return { ...row, countReference, sku: counted, location: elsewhere ? otherThan(home, pick) : home, lot: lotOf(counted, lot.pick, lot.mistake) };
    }),
  }));

const receiptRow = fc
  .record({
    poNumber: sharedReference('receipts'),
    sku,
    location: anyLocation,
    quantity: quarters(1, 16),
    lot: lotChoice,
    receivedAt: weighted(fc.constant(''), fc.constant(RECEIVED_AT), 4),
  })
  .map(({ lot, ...row }): ReceiptRow => ({ ...row, lot: lotOf(row.sku, lot.pick, lot.mistake) }));
const receiptFile = fc.record({ door: fc.constant('import' as const), kind: fc.constant('po-receipts' as const), strategy, rows: fileRows(receiptRow) });

const expectation = (route: StockChangeRoute) =>
  fc.oneof(
    { arbitrary: fc.constant<Expectation>('right'), weight: 8 },
    { arbitrary: fc.constant<Expectation>('null'), weight: route === 'receipts' ? 2 : 4 },
    { arbitrary: fc.constant<Expectation>('absent'), weight: route === 'receipts' ? 2 : 0 },
    { arbitrary: fc.constant<Expectation>('wrong'), weight: 1 },
  );

/** Mostly a few quarters; sometimes more than a place is likely to hold. */
const moved = weighted(quarters(1, 8), quarters(12, 40), 5);

/** The signed quantity a line of the route carries. */
function lineQuantity(route: StockChangeRoute): fc.Arbitrary<number> {
  switch (route) {
    case 'adjustments':
      return fc.tuple(moved, fc.boolean()).map(([quantity, negative]) => (negative ? -quantity : quantity));
    case 'transfers':
      return moved;
    case 'counts':
      return fc.oneof(quarters(0, 16), fc.constant(0));
    case 'receipts':
      return quarters(1, 16);
  }
}

/** A well-formed line: a known item, known locations (a transfer's two differ), the lot its item wants. */
function jsonLine(route: StockChangeRoute): fc.Arbitrary<JsonLine> {
  return fc
    .record({
      sku: fc.constantFrom<Sku>('P1', 'P2', 'LOT'),
      itemById: weighted(fc.constant(false), fc.constant(true), 3),
      loc: location,
      pick: fc.nat(),
      locById: weighted(fc.constant(false), fc.constant(true), 3),
      stocked: weighted(fc.constant(true), fc.constant(false), 2),
      share: weighted(fc.constantFrom(0.25, 0.5, 0.5, 1), fc.constant(2), 6),
      lot: fc.constantFrom('L1', 'L1', 'L2'),
      nullLot: fc.boolean(),
      quantity: lineQuantity(route),
      expectation: expectation(route),
      wrongBy: fc.tuple(quarters(1, 4), fc.boolean()).map(([by, below]) => (below ? -by : by)),
    })
    .map(({ lot, ...line }): JsonLine => ({
      ...line,
      to: otherThan(line.loc, line.pick),
      lot: isLotTracked(line.sku) ? lot : '',
      toSource: false,
      flawed: false,
    }));
}

/** What makes a change a 400, rarely: a lot-rule breach, an unknown sku or location, a transfer to its own source. */
type Flaw = 'none' | 'lot' | 'sku' | 'location' | 'source';
const flaw = fc.oneof(
  { arbitrary: fc.constant<Flaw>('none'), weight: 24 },
  { arbitrary: fc.constantFrom<Flaw>('lot', 'sku', 'location', 'source'), weight: 2 },
);

/** The step's flaw put on one of its lines (or, for a count's location, on the body). */
function withFlaw(chosen: JsonStep, what: Flaw, at: number, destination: boolean): JsonStep {
  const index = at % chosen.lines.length;
  const lines = chosen.lines.map((line, lineIndex): JsonLine => {
    if (lineIndex !== index || what === 'none') return line;
    const flawed = { ...line, flawed: true };
    switch (what) {
      case 'lot':
        return { ...flawed, lot: isLotTracked(line.sku) ? '' : 'L1' };
      case 'sku':
        return { ...flawed, sku: 'GHOST', lot: '' };
      case 'location':
        // A count's unknown location is its body's: every line keeps its own place then.
        if (chosen.route === 'counts') return { ...flawed, stocked: false };
        return chosen.route === 'transfers' && destination ? { ...flawed, to: 'W9' } : { ...flawed, loc: 'W9' };
      case 'source':
        return chosen.route === 'transfers' ? { ...line, toSource: true } : line;
    }
  });
  return { ...chosen, lines, location: what === 'location' && chosen.route === 'counts' ? 'W9' : chosen.location };
}

const jsonStep = (route: StockChangeRoute): fc.Arbitrary<Step> =>
  fc
    .record({
      step: fc.record({
        door: fc.constant('json' as const),
        route: fc.constant(route),
        reference: fc.oneof({ arbitrary: sharedReference(route), weight: 3 }, { arbitrary: fc.constant(null), weight: 1 }),
        reason: route === 'adjustments' ? fc.constantFrom<string | null>(null, 'sale') : fc.constant(null),
        location: route === 'counts' ? location : fc.constant<AnyLoc>('W1'),
        locationById: fc.boolean(),
        receivedAt: route === 'receipts' ? weighted(fc.constant(null), fc.constant(RECEIVED_AT), 3) : fc.constant(null),
        lines: fc.array(jsonLine(route), { minLength: 1, maxLength: 4 }),
        replay: weighted(fc.constant(false), fc.constant(true), 4),
      }),
      flaw,
      at: fc.nat(),
      destination: fc.boolean(),
    })
    .map(({ step: chosen, flaw: what, at, destination }) => withFlaw(chosen, what, at, destination));

const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: receiptFile, weight: 2 },
  { arbitrary: adjustmentFile, weight: 2 },
  { arbitrary: transferFile, weight: 2 },
  { arbitrary: countFile, weight: 2 },
  { arbitrary: jsonStep('receipts'), weight: 3 },
  { arbitrary: jsonStep('adjustments'), weight: 3 },
  { arbitrary: jsonStep('transfers'), weight: 3 },
  { arbitrary: jsonStep('counts'), weight: 3 },
  { arbitrary: fc.record({ door: fc.constant('resend' as const), which: fc.nat() }), weight: 2 },
);

/** The opening step receives stock (by either door), so that later steps find some to move; 4 to 10 steps in all. */
const steps = fc
  .tuple(fc.oneof(receiptFile, jsonStep('receipts')), fc.array(step, { minLength: 3, maxLength: 9 }))
  .map(([opening, rest]): Step[] => [opening, ...rest]);

const reorderPoint = fc.integer({ min: 1, max: 8 }).map((halves) => halves * (MICRO / 2));
const reorderPoints = fc.record({ P1: reorderPoint, P2: reorderPoint, LOT: fc.option(reorderPoint, { nil: null }) });

function fileOf(chosen: ImportStep): string {
  switch (chosen.kind) {
    case 'stock-adjustments':
      return csvOf(
        ['reference', 'sku', 'locationCode', 'quantityDelta', 'lot', 'reason'],
        chosen.rows.map((row) => [row.reference, row.sku, row.location, decimal(row.delta), row.lot, row.reason]),
      );
    case 'stock-transfers':
      return csvOf(
        ['reference', 'sku', 'fromLocationCode', 'toLocationCode', 'quantity', 'lot'],
        chosen.rows.map((row) => [row.reference, row.sku, row.from, row.to, decimal(row.quantity), row.lot]),
      );
    case 'stock-counts':
      return csvOf(
        ['countReference', 'locationCode', 'sku', 'countedQuantity', 'lot'],
        chosen.rows.map((row) => [row.countReference, row.location, row.sku, decimal(row.counted), row.lot]),
      );
    case 'po-receipts':
      return csvOf(
        ['poNumber', 'sku', 'locationCode', 'quantity', 'lot', 'receivedAt'],
        chosen.rows.map((row) => [row.poNumber, row.sku, row.location, decimal(row.quantity), row.lot, row.receivedAt]),
      );
  }
}

// ---------------------------------------------------------------------------------------------
// A JSON change as sent: references fixed and expectedQuantity worked out from the stock before it

interface ChangeLine {
  sku: Sku;
  /** Adjustments and receipts: the location; transfers: the source; counts: the count's location. */
  loc: AnyLoc;
  /** Transfers: the destination. */
  to: AnyLoc;
  /** Transfers: the field naming the destination, where a 400 points. */
  toField: 'toLocationCode' | 'toLocationId';
  lot: string;
  quantity: number;
  /** Micro-units; null: sent as null; undefined: left out. */
  expected: number | null | undefined;
}

interface Change {
  route: StockChangeRoute;
  reference: string;
  reason: string | null;
  receivedAt: string | null;
  lines: ChangeLine[];
}

const FRESH_PREFIX: Record<StockChangeRoute, string> = { adjustments: 'ADJ-J', transfers: 'TR-J', counts: 'CNT-J', receipts: 'PO-J' };

/** The change a JSON step sends as step `index`, its expectations read off the model's (that is, the stored) on-hand. */
function changeOf(chosen: JsonStep, model: StockModel, ids: Ids, index: number): Change {
  return {
    route: chosen.route,
    reference: chosen.reference ?? `${FRESH_PREFIX[chosen.route]}${index}`,
    reason: chosen.reason,
    receivedAt: chosen.receivedAt,
    lines: chosen.lines.map((line): ChangeLine => {
      let place = { sku: line.sku, loc: chosen.route === 'counts' ? chosen.location : line.loc, lot: line.lot };
      let quantity = line.quantity;
      const stocked =
        line.stocked && !line.flawed && chosen.route !== 'receipts'
          ? model.stockedPlaces().filter((candidate) => chosen.route !== 'counts' || candidate.loc === chosen.location)
          : [];
      const picked = stocked[line.pick % Math.max(stocked.length, 1)];
      if (picked) {
        place = picked;
        const quarter = MICRO / 4;
        const share = Math.max(quarter, Math.floor((model.at(place.sku, place.loc, place.lot) * line.share) / quarter) * quarter);
        if (chosen.route === 'transfers') quantity = share;
        if (chosen.route === 'adjustments' && quantity < 0) quantity = -share;
      }
      const to = line.toSource ? place.loc : place.loc === line.to ? otherThan(place.loc as Loc, line.pick) : line.to;
      const right = model.at(place.sku, place.loc, place.lot);
      const wrong = right + line.wrongBy >= 0 ? right + line.wrongBy : right - line.wrongBy;
      const expected = { right, wrong, null: null, absent: undefined }[line.expectation];
      const toField = line.locById && ids.locations.has(to as Loc) ? 'toLocationId' : 'toLocationCode';
      return { ...place, to, toField, quantity, expected };
    }),
  };
}

/** The request body of a change; items and locations by id where the step says so and they exist. */
function bodyOf(chosen: JsonStep, change: Change, ids: Ids): Record<string, unknown> {
  const itemOf = (line: JsonLine, changeLine: ChangeLine) => {
    const id = ids.items.get(changeLine.sku as CatalogSku);
    return line.itemById && id ? { itemId: id } : { sku: changeLine.sku };
  };
  const locationOf = (loc: AnyLoc, byId: boolean, prefix: 'location' | 'fromLocation' | 'toLocation') => {
    const id = ids.locations.get(loc as Loc);
    return byId && id ? { [`${prefix}Id`]: id } : { [`${prefix}Code`]: loc };
  };
  const lines = change.lines.map((changeLine, index) => {
    const line = chosen.lines[index] as JsonLine;
    const lot = changeLine.lot === '' ? (line.nullLot ? { lot: null } : {}) : { lot: changeLine.lot };
    const expectedQuantity = changeLine.expected === undefined ? {} : { expectedQuantity: changeLine.expected === null ? null : changeLine.expected / MICRO };
    const quantity = changeLine.quantity / MICRO;
    switch (change.route) {
      case 'adjustments':
        return { ...itemOf(line, changeLine), ...locationOf(changeLine.loc, line.locById, 'location'), ...lot, quantityDelta: quantity, ...expectedQuantity };
      case 'transfers':
        return {
          ...itemOf(line, changeLine),
          ...locationOf(changeLine.loc, line.locById, 'fromLocation'),
          ...locationOf(changeLine.to, line.locById, 'toLocation'),
          ...lot,
          quantity,
          ...expectedQuantity,
        };
      case 'counts':
        return { ...itemOf(line, changeLine), ...lot, countedQuantity: quantity, ...expectedQuantity };
      case 'receipts':
        return { ...itemOf(line, changeLine), ...locationOf(changeLine.loc, line.locById, 'location'), ...lot, quantity, ...expectedQuantity };
    }
  });
  switch (change.route) {
    case 'adjustments':
      return { reference: change.reference, ...(change.reason === null ? {} : { reason: change.reason }), lines };
    case 'transfers':
      return { reference: change.reference, lines };
    case 'counts':
      return { countReference: change.reference, ...locationOf(chosen.location, chosen.locationById, 'location'), lines };
    case 'receipts':
      return { poNumber: change.reference, ...(change.receivedAt === null ? {} : { receivedAt: change.receivedAt }), lines };
  }
}

// ---------------------------------------------------------------------------------------------
// The model: what docs/inventory.md says each step does

/** An event as compared: ids replaced by skus and location codes, quantities in micro-units. */
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
      reason: string | null;
    }
  | { type: 'low-stock'; sku: string; onHand: number; reorderPoint: number }
  | { type: 'po.received'; poNumber: string; lines: Array<{ sku: string; location: string; quantity: number; lot: string | null }> }
  | { type: 'count.completed'; countReference: string; location: string; lines: CountLine[] }
  | { type: 'other'; eventType: string };

type ReceiptLine = { sku: string; location: string; quantity: number; lot: string | null };
type CountLine = { sku: string; lot: string | null; expected: number; counted: number; delta: number };

interface ExpectedJob {
  counts: { created: number; skipped: number; failed: number };
  /** Row number → its error codes (sorted). */
  errors: Map<number, string[]>;
  events: Seen[];
}

/** A line of a 201 as compared: its record before and after (micro-units), and whether it made a movement. */
interface AnsweredLine {
  line: number;
  sku: string;
  locationCode: string;
  lot: string | null;
  previousQuantity: number;
  quantity: number;
  delta: number;
  moved: boolean;
}

type ExpectedAnswer =
  | { status: 400; errors: Array<{ pointer: string; code: string }> }
  | { status: 409; code: 'already-applied'; lines: Array<{ line: number; appliedBy: string }> }
  | { status: 409; code: 'quantity-stale'; lines: Array<{ line: number; stockRecordId: string | null; expectedQuantity: number; currentQuantity: number }> }
  | { status: 409; code: 'insufficient-stock'; lines: Array<{ line: number; stockRecordId: string | null; available: number; requested: number }> }
  | { status: 201; lines: AnsweredLine[]; events: Seen[] };

type Movement = {
  type: string;
  sku: CatalogSku;
  quantity: number;
  reference: string;
  from?: { loc: Loc; lot: string };
  to?: { loc: Loc; lot: string };
  reason?: string | null;
};

class StockModel {
  readonly onHand = new Map<string, number>();
  /** Places some movement touched: exactly those have a stock record. */
  readonly touched = new Set<string>();
  /** Each applied natural key (the product's claim key), with the import job or stock change that applied it. */
  readonly claims = new Map<string, string>();
  /** Movements made under each applied natural key. */
  readonly movementsOf = new Map<string, number>();

  constructor(private readonly reorderPoints: Record<CatalogSku, number | null>) {}

  at(of: string, loc: string, lot: string): number {
    return this.onHand.get(placeKey(of, loc, lot)) ?? 0;
  }

  /** The places holding stock, in a fixed order. */
  stockedPlaces(): Array<{ sku: Sku; loc: AnyLoc; lot: string }> {
    return [...this.onHand]
      .filter(([, quantity]) => quantity > 0)
      .map(([key]) => key)
      .sort()
      .map((key) => {
        const [of, loc, lot] = JSON.parse(key) as [Sku, AnyLoc, string];
        return { sku: of, loc, lot };
      });
  }

  total(of: string): number {
    let sum = 0;
    for (const [key, quantity] of this.onHand) if ((JSON.parse(key) as string[])[0] === of) sum += quantity;
    return sum;
  }

  private lotProblem(of: Sku, lot: string): 'lot-required' | 'lot-not-allowed' | undefined {
    if (isLotTracked(of) && lot === '') return 'lot-required';
    if (!isLotTracked(of) && lot !== '') return 'lot-not-allowed';
    return undefined;
  }

  /** A movement on the model's stock, its events appended; returns each leg's record before and after. */
  private move(events: Seen[], movement: Movement): Array<{ loc: Loc; lot: string; previous: number; quantity: number }> {
    const before = this.total(movement.sku);
    const lot = nullable((movement.from ?? movement.to)?.lot ?? '');
    events.push({
      type: 'movement.created',
      movementType: movement.type,
      sku: movement.sku,
      from: movement.from?.loc ?? null,
      to: movement.to?.loc ?? null,
      quantity: movement.quantity,
      lot,
      reference: movement.reference,
    });
    const legs: Array<[{ loc: Loc; lot: string }, number]> = [];
    if (movement.from) legs.push([movement.from, -movement.quantity]);
    if (movement.to) legs.push([movement.to, movement.quantity]);
    const changed = legs.map(([side, delta]) => {
      const key = placeKey(movement.sku, side.loc, side.lot);
      const previous = this.onHand.get(key) ?? 0;
      this.onHand.set(key, previous + delta);
      this.touched.add(key);
      events.push({
        type: 'stock.changed',
        sku: movement.sku,
        locationCode: side.loc,
        lot: nullable(side.lot),
        previousQuantity: previous,
        quantity: previous + delta,
        delta,
        reason: movement.reason ?? null,
      });
      return { ...side, previous, quantity: previous + delta };
    });
    const after = this.total(movement.sku);
    const point = this.reorderPoints[movement.sku];
    if (point !== null && before >= point && after < point) events.push({ type: 'low-stock', sku: movement.sku, onHand: after, reorderPoint: point });
    return changed;
  }

  private claim(key: string, applier: string, movements: number) {
    this.claims.set(key, applier);
    this.movementsOf.set(key, (this.movementsOf.get(key) ?? 0) + movements);
  }

  // -------------------------------------------------------------------------------------------
  // Imports: the file validated as a whole, then each row one unit, in row order

  applyImport(chosen: ImportStep, jobId: string): ExpectedJob {
    const expected: ExpectedJob = { counts: { created: 0, skipped: 0, failed: 0 }, errors: new Map(), events: [] };
    const fail = (rowNumber: number, codes: string[]) => {
      expected.counts.failed += 1;
      expected.errors.set(rowNumber, [...codes].sort());
    };
    const lastRowOfDocument = new Map<string, number>();
    const receipts = new Map<string, ReceiptLine[]>();
    const counts = new Map<string, { location: Loc; lines: CountLine[] }>();
    const documentOf = (row: ImportStep['rows'][number]) => ('poNumber' in row ? row.poNumber : 'countReference' in row ? row.countReference : undefined);
    chosen.rows.forEach((row, index) => {
      const reference = documentOf(row);
      if (reference !== undefined) lastRowOfDocument.set(reference, index + 1);
    });
    const seenKeys = new Set<string>();
    chosen.rows.forEach((row, index) => {
      const rowNumber = index + 1;
      const key = importClaimKey(row);
      const invalid: string[] = [];
      if (seenKeys.has(key)) invalid.push('duplicate-in-file');
      seenKeys.add(key);
      if (row.sku === 'GHOST') invalid.push('unknown-sku');
      if ('location' in row && row.location === 'W9') invalid.push('unknown-location');
      if (invalid.length > 0) fail(rowNumber, invalid);
      else if (this.claims.has(key)) {
        if (chosen.strategy === 'fail') fail(rowNumber, ['duplicate']);
        else expected.counts.skipped += 1;
      } else {
        const refused = this.decideRow(row, expected.events, receipts, counts);
        if (refused) fail(rowNumber, [refused]);
        else expected.counts.created += 1;
        if (!refused) this.claim(key, jobId, 0);
      }
      // After the file's last row of a PO or count (applied or not), its event when it has lines.
      const reference = documentOf(row);
      if (reference !== undefined && lastRowOfDocument.get(reference) === rowNumber) {
        const receipt = receipts.get(reference);
        const count = counts.get(reference);
        if (receipt && receipt.length > 0) expected.events.push({ type: 'po.received', poNumber: reference, lines: receipt });
        if (count && count.lines.length > 0)
          expected.events.push({ type: 'count.completed', countReference: reference, location: count.location, lines: count.lines });
      }
    });
    // Movements per claim: counted from the events, for the end-of-run check.
    for (const event of expected.events) if (event.type === 'movement.created') this.countMovement(event);
    return expected;
  }

  private countMovement(event: Extract<Seen, { type: 'movement.created' }>) {
    const key = movementClaimKey(event);
    this.movementsOf.set(key, (this.movementsOf.get(key) ?? 0) + 1);
  }

  /** One valid, unclaimed row on the model's stock; the refusal's code, or undefined when it applied. */
  private decideRow(
    row: ImportStep['rows'][number],
    events: Seen[],
    receipts: Map<string, ReceiptLine[]>,
    counts: Map<string, { location: Loc; lines: CountLine[] }>,
  ): string | undefined {
    const lotProblem = this.lotProblem(row.sku, row.lot);
    if (lotProblem) return lotProblem;
    const of = row.sku as CatalogSku;
    const side = (loc: AnyLoc) => ({ loc: loc as Loc, lot: row.lot });
    if ('poNumber' in row) {
      this.move(events, { type: 'receipt', sku: of, quantity: row.quantity, reference: row.poNumber, to: side(row.location) });
      receipts.set(row.poNumber, [...(receipts.get(row.poNumber) ?? []), { sku: of, location: row.location, quantity: row.quantity, lot: nullable(row.lot) }]);
    } else if ('countReference' in row) {
      const count = counts.get(row.countReference);
      if (count && count.location !== row.location) return 'invalid-value';
      const before = this.at(of, row.location, row.lot);
      const delta = row.counted - before;
      if (delta !== 0)
        this.move(events, {
          type: 'count',
          sku: of,
          quantity: Math.abs(delta),
          reference: row.countReference,
          ...(delta < 0 ? { from: side(row.location) } : { to: side(row.location) }),
        });
      counts.set(row.countReference, {
        location: row.location,
        lines: [...(count?.lines ?? []), { sku: of, lot: nullable(row.lot), expected: before, counted: row.counted, delta }],
      });
    } else if ('from' in row) {
      if (this.at(of, row.from, row.lot) < row.quantity) return 'insufficient-stock';
      this.move(events, { type: 'transfer', sku: of, quantity: row.quantity, reference: row.reference, from: side(row.from), to: side(row.to) });
    } else {
      const quantity = Math.abs(row.delta);
      if (row.delta < 0 && this.at(of, row.location, row.lot) < quantity) return 'insufficient-stock';
      this.move(events, {
        type: 'adjustment',
        sku: of,
        quantity,
        reference: row.reference,
        reason: row.reason === '' ? null : row.reason,
        ...(row.delta < 0 ? { from: side(row.location) } : { to: side(row.location) }),
      });
    }
    return undefined;
  }

  // -------------------------------------------------------------------------------------------
  // JSON changes: 400, then already-applied, then quantity-stale, then insufficient-stock, else all lines

  /**
   * The answer to a change; on a 201 its lines are applied to the model and its natural keys
   * claimed by `changeId`. `recordIds`: the stored records' ids by place, as before the change.
   */
  applyChange(change: Change, recordIds: ReadonlyMap<string, string>, changeId: string): ExpectedAnswer {
    const { route, lines } = change;
    // 400: unknown items and locations, all at once; else the lot rules and a transfer's own source.
    const unknown: Array<{ pointer: string; code: string }> = [];
    lines.forEach((line, index) => {
      if (line.sku === 'GHOST') unknown.push({ pointer: `/lines/${index}/sku`, code: 'unknown-item' });
      if (route !== 'counts' && line.loc === 'W9')
        unknown.push({ pointer: `/lines/${index}/${route === 'transfers' ? 'fromLocationCode' : 'locationCode'}`, code: 'unknown-location' });
      if (route === 'transfers' && line.to === 'W9') unknown.push({ pointer: `/lines/${index}/toLocationCode`, code: 'unknown-location' });
    });
    if (route === 'counts' && lines[0]?.loc === 'W9') unknown.push({ pointer: '/locationCode', code: 'unknown-location' });
    if (unknown.length > 0) return { status: 400, errors: unknown };
    const breaches: Array<{ pointer: string; code: string }> = [];
    lines.forEach((line, index) => {
      const lotProblem = this.lotProblem(line.sku, line.lot);
      if (lotProblem) breaches.push({ pointer: `/lines/${index}/lot`, code: lotProblem });
      if (route === 'transfers' && line.loc === line.to) breaches.push({ pointer: `/lines/${index}/${line.toField}`, code: 'invalid-value' });
    });
    if (breaches.length > 0) return { status: 400, errors: breaches };

    const keys = lines.map((line) => changeClaimKey(change, line));
    const applied = keys.flatMap((key, index) => {
      const appliedBy = this.claims.get(key);
      return appliedBy === undefined ? [] : [{ line: index, appliedBy }];
    });
    if (applied.length > 0) return { status: 409, code: 'already-applied', lines: applied };

    const recordId = (line: ChangeLine) => recordIds.get(placeKey(line.sku, line.loc, line.lot)) ?? null;
    const stale = lines.flatMap((line, index) => {
      const current = this.at(line.sku, line.loc, line.lot);
      return line.expected === null || line.expected === undefined || line.expected === current
        ? []
        : [{ line: index, stockRecordId: recordId(line), expectedQuantity: line.expected / MICRO, currentQuantity: current / MICRO }];
    });
    if (stale.length > 0) return { status: 409, code: 'quantity-stale', lines: stale };

    // The lines in order on a copy of the stock; kept only when none ran short.
    const saved = { onHand: new Map(this.onHand), touched: new Set(this.touched) };
    const events: Seen[] = [];
    const answered: AnsweredLine[] = [];
    const short: Array<{ line: number; stockRecordId: string | null; available: number; requested: number }> = [];
    const documentLines: Array<ReceiptLine | CountLine> = [];
    lines.forEach((line, index) => {
      const of = line.sku as CatalogSku;
      const at = { loc: line.loc as Loc, lot: line.lot };
      const answer = (legs: Array<{ loc: Loc; lot: string; previous: number; quantity: number }>, moved: boolean) => {
        for (const leg of legs)
          answered.push({
            line: index,
            sku: of,
            locationCode: leg.loc,
            lot: nullable(leg.lot),
            previousQuantity: leg.previous,
            quantity: leg.quantity,
            delta: leg.quantity - leg.previous,
            moved,
          });
      };
      const available = this.at(of, at.loc, at.lot);
      switch (route) {
        case 'adjustments': {
          const quantity = Math.abs(line.quantity);
          if (line.quantity < 0 && available < quantity)
            return short.push({ line: index, stockRecordId: recordId(line), available: available / MICRO, requested: quantity / MICRO });
          return answer(
            this.move(events, {
              type: 'adjustment',
              sku: of,
              quantity,
              reference: change.reference,
              reason: change.reason,
              ...(line.quantity < 0 ? { from: at } : { to: at }),
            }),
            true,
          );
        }
        case 'transfers':
          if (available < line.quantity)
            return short.push({ line: index, stockRecordId: recordId(line), available: available / MICRO, requested: line.quantity / MICRO });
          return answer(
            this.move(events, {
              type: 'transfer',
              sku: of,
              quantity: line.quantity,
              reference: change.reference,
              from: at,
              to: { loc: line.to as Loc, lot: line.lot },
            }),
            true,
          );
        case 'counts': {
          const delta = line.quantity - available;
          documentLines.push({ sku: of, lot: nullable(line.lot), expected: available, counted: line.quantity, delta });
          if (delta === 0) return answer([{ ...at, previous: available, quantity: available }], false);
          return answer(
            this.move(events, { type: 'count', sku: of, quantity: Math.abs(delta), reference: change.reference, ...(delta < 0 ? { from: at } : { to: at }) }),
            true,
          );
        }
        case 'receipts':
          documentLines.push({ sku: of, location: at.loc, quantity: line.quantity, lot: nullable(line.lot) });
          return answer(this.move(events, { type: 'receipt', sku: of, quantity: line.quantity, reference: change.reference, to: at }), true);
      }
    });
    if (short.length > 0) {
      this.onHand.clear();
      for (const [key, quantity] of saved.onHand) this.onHand.set(key, quantity);
      this.touched.clear();
      for (const key of saved.touched) this.touched.add(key);
      return { status: 409, code: 'insufficient-stock', lines: short };
    }
    if (route === 'receipts') events.push({ type: 'po.received', poNumber: change.reference, lines: documentLines as ReceiptLine[] });
    if (route === 'counts')
      events.push({ type: 'count.completed', countReference: change.reference, location: lines[0]?.loc ?? '', lines: documentLines as CountLine[] });
    for (const key of new Set(keys)) this.claim(key, changeId, 0);
    for (const event of events) if (event.type === 'movement.created') this.countMovement(event);
    return { status: 201, lines: answered, events };
  }
}

/** The natural key an import row is claimed under (the product's, shared with the JSON lines). */
function importClaimKey(row: ImportStep['rows'][number]): string {
  if ('poNumber' in row) return receiptClaimKey(row.poNumber, row.sku, row.location, nullable(row.lot));
  if ('countReference' in row) return countClaimKey(row.countReference, row.sku, nullable(row.lot));
  if ('from' in row) return transferClaimKey(row.reference, row.sku, nullable(row.lot));
  return adjustmentClaimKey(row.reference, row.sku, row.location, nullable(row.lot));
}

function changeClaimKey(change: Change, line: ChangeLine): string {
  const lot = nullable(line.lot);
  switch (change.route) {
    case 'adjustments':
      return adjustmentClaimKey(change.reference, line.sku, line.loc, lot);
    case 'transfers':
      return transferClaimKey(change.reference, line.sku, lot);
    case 'counts':
      return countClaimKey(change.reference, line.sku, lot);
    case 'receipts':
      return receiptClaimKey(change.reference, line.sku, line.loc, lot);
  }
}

/** The natural key a movement was made under, from what it carries: its type, reference, sku, location and lot. */
function movementClaimKey(movement: {
  movementType: string;
  sku: string;
  from: string | null;
  to: string | null;
  lot: string | null;
  reference: string | null;
}): string {
  const reference = movement.reference ?? '';
  switch (movement.movementType) {
    case 'adjustment':
      return adjustmentClaimKey(reference, movement.sku, movement.from ?? movement.to ?? '', movement.lot);
    case 'transfer':
      return transferClaimKey(reference, movement.sku, movement.lot);
    case 'count':
      return countClaimKey(reference, movement.sku, movement.lot);
    case 'receipt':
      return receiptClaimKey(reference, movement.sku, movement.to ?? '', movement.lot);
    default:
      return JSON.stringify(['unexpected movement', movement]);
  }
}

// ---------------------------------------------------------------------------------------------
// Reading what was stored

interface Ids {
  items: Map<CatalogSku, string>;
  locations: Map<Loc, string>;
  codeOf: Map<string, string>;
}

/** Every place of the catalog (including lots an item may not have, which must never hold a record). */
function allPlaces(ids: Ids) {
  return CATALOG_SKUS.flatMap((of) =>
    LOCATIONS.flatMap((loc) =>
      ALL_LOTS.map((lot) => ({ sku: of, loc, lot, key: stockRecordKey(ids.items.get(of) ?? '', ids.locations.get(loc) ?? '', nullable(lot)) })),
    ),
  );
}

const codeOf = (ids: Ids, locationId: unknown) => (locationId === null ? null : (ids.codeOf.get(String(locationId)) ?? `unknown ${String(locationId)}`));

/** An event as compared with the model. */
function seen(ids: Ids, event: EventEnvelope): Seen {
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
        type: event.type,
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
        type: event.type,
        sku: String(data.sku),
        locationCode: String(data.locationCode),
        lot: data.lot as string | null,
        previousQuantity: micro(Number(data.previousQuantity)),
        quantity: micro(Number(data.quantity)),
        delta: micro(Number(data.delta)),
        reason: data.reason as string | null,
      };
    case 'low-stock':
      return { type: event.type, sku: String(data.sku), onHand: micro(Number(data.onHand)), reorderPoint: micro(Number(data.reorderPoint)) };
    case 'po.received': {
      const lines = data.lines as Array<{ sku: string; locationId: string; quantity: number; lot: string | null }>;
      return {
        type: event.type,
        poNumber: String(data.poNumber),
        lines: lines.map((line) => ({ sku: line.sku, location: codeOf(ids, line.locationId) ?? '', quantity: micro(line.quantity), lot: line.lot })),
      };
    }
    case 'count.completed': {
      const lines = data.lines as Array<{ sku: string; lot: string | null; expected: number; counted: number; delta: number }>;
      return {
        type: event.type,
        countReference: String(data.countReference),
        location: codeOf(ids, data.locationId) ?? '',
        lines: lines.map((line) => ({ sku: line.sku, lot: line.lot, expected: micro(line.expected), counted: micro(line.counted), delta: micro(line.delta) })),
      };
    }
    default:
      return { type: 'other', eventType: event.type };
  }
}

/**
 * Replays the whole feed without the model: each movement's events are contiguous
 * (`movement.created`, its `stock.changed` legs chained on each record's previous quantity, then
 * `low-stock` exactly when the item's total crossed below its reorder point). Returns each stock
 * record's replayed quantity (micro-units) and place.
 */
function replayFeed(events: readonly EventEnvelope[], reorderPoints: Map<string, number | null>) {
  const quantities = new Map<string, number>();
  const placeOf = new Map<string, string>();
  const totalOf = (itemId: string) => {
    let sum = 0;
    for (const [recordId, quantity] of quantities) if (placeOf.get(recordId)?.startsWith(`${itemId}#`)) sum += quantity;
    return sum;
  };
  for (let index = 0; index < events.length;) {
    const event = events[index] as EventEnvelope;
    expect(['stock.changed', 'low-stock'], `event ${index} (${event.type}) outside a movement`).not.toContain(event.type);
    index += 1;
    if (event.type !== 'movement.created') continue;
    const movement = event.data.movement as { id: string; type: string; itemId: string };
    const before = totalOf(movement.itemId);
    let legs = 0;
    for (let next = events[index]; next?.type === 'stock.changed' && next.data.movementId === movement.id; next = events[index]) {
      const change = next.data as {
        stockRecordId: string;
        itemId: string;
        locationId: string;
        lot: string | null;
        previousQuantity: number;
        quantity: number;
        delta: number;
      };
      const place = stockRecordKey(change.itemId, change.locationId, change.lot);
      expect(change.itemId, `stock.changed of movement ${movement.id}`).toBe(movement.itemId);
      expect(placeOf.get(change.stockRecordId) ?? place, `place of ${change.stockRecordId}`).toBe(place);
      expect(
        [...placeOf].filter(([id, known]) => known === place && id !== change.stockRecordId),
        `one record per place ${place}`,
      ).toEqual([]);
      placeOf.set(change.stockRecordId, place);
      const previous = quantities.get(change.stockRecordId) ?? 0;
      expect(micro(change.previousQuantity), `previousQuantity of ${change.stockRecordId} in movement ${movement.id}`).toBe(previous);
      expect(micro(change.quantity), `quantity of ${change.stockRecordId}`).toBe(previous + micro(change.delta));
      expect(change.quantity, `on-hand of ${change.stockRecordId}`).toBeGreaterThanOrEqual(0);
      quantities.set(change.stockRecordId, micro(change.quantity));
      legs += 1;
      index += 1;
    }
    expect(legs, `stock.changed events of ${movement.type} movement ${movement.id}`).toBe(movement.type === 'transfer' ? 2 : 1);
    const after = totalOf(movement.itemId);
    const point = reorderPoints.get(movement.itemId) ?? null;
    const crossed = point !== null && before >= point && after < point;
    const next = events[index];
    const lowStock = next?.type === 'low-stock' ? next : undefined;
    if (crossed) {
      expect(lowStock?.data, `low-stock after movement ${movement.id} (total ${before} → ${after}, reorder point ${point})`).toMatchObject({
        itemId: movement.itemId,
      });
      expect(micro(Number(lowStock?.data.onHand)), `low-stock onHand after movement ${movement.id}`).toBe(after);
      expect(micro(Number(lowStock?.data.reorderPoint))).toBe(point);
      index += 1;
    } else {
      expect(lowStock?.data, `no low-stock after movement ${movement.id} (total ${before} → ${after}, reorder point ${point})`).toBeUndefined();
    }
  }
  return { quantities, placeOf };
}

/** Check 2 against the stored stock and the model's on-hand; returns the stored records by place key. */
async function expectStockMatches(organizationId: string, ids: Ids, model: StockModel, label: string) {
  const places = allPlaces(ids);
  const [stored, totals] = await Promise.all([
    inventoryRecords().getByNaturalKeys(
      organizationId,
      'stock-record',
      places.map(({ key }) => key),
    ),
    importRecords().getByNaturalKeys(organizationId, 'item-stock', [...ids.items.values()]),
  ]);
  const records = new Map<string, StockRecord>([...stored].map(([key, { record }]) => [key, record]));
  await Promise.all([...records.values()].map((record) => expectLedgerMatches(organizationId, record)));
  const recordIds = new Map<string, string>();
  for (const place of places) {
    const record = records.get(place.key);
    const modelled = placeKey(place.sku, place.loc, place.lot);
    expect(record !== undefined, `${label}: a stock record of ${place.sku} at ${place.loc} in lot '${place.lot}' exists`).toBe(model.touched.has(modelled));
    if (!record) continue;
    recordIds.set(modelled, record.id);
    expect(record.onHand, `${label}: on-hand of ${place.sku} at ${place.loc} in lot '${place.lot}'`).toBeGreaterThanOrEqual(0);
    expect(micro(record.onHand), `${label}: on-hand of ${place.sku} at ${place.loc} in lot '${place.lot}' (model)`).toBe(
      model.at(place.sku, place.loc, place.lot),
    );
  }
  for (const [of, itemId] of ids.items) {
    const sum = [...records.values()].filter((record) => record.itemId === itemId).reduce((total, record) => total + micro(record.onHand), 0);
    const total = (totals.get(itemId)?.record as ItemStock | undefined)?.onHand ?? 0;
    expect(micro(total), `${label}: item-stock of ${of} is the sum of its stock records`).toBe(sum);
  }
  return { records, recordIds };
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
// Checking one answer

interface ChangeAnswer {
  id: string;
  kind: string;
  reference: string;
  reason: string | null;
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
interface Problem {
  code?: string;
  lines?: unknown[];
  errors?: Array<{ pointer: string; code: string }>;
}

const KIND_OF: Record<StockChangeRoute, string> = { adjustments: 'adjustment', transfers: 'transfer', counts: 'count', receipts: 'receipt' };
const byPointer = (errors: ReadonlyArray<{ pointer: string; code: string }>) =>
  errors.map(({ pointer, code }) => ({ pointer, code })).sort((a, b) => a.pointer.localeCompare(b.pointer) || a.code.localeCompare(b.code));

function expectAnswer(answer: HandlerAnswer, expected: ExpectedAnswer, change: Change, label: string): void {
  expect(answer.status, `${label}: status of ${answer.text}`).toBe(expected.status);
  if (expected.status === 400) {
    expect(byPointer((answer.json as Problem).errors ?? []), `${label}: 400 pointers`).toEqual(byPointer(expected.errors));
    return;
  }
  if (expected.status === 409) {
    const problem = answer.json as Problem;
    expect(problem.code, `${label}: 409 code`).toBe(`customer-api.stock.${expected.code}`);
    expect(problem.lines, `${label}: 409 lines`).toEqual(expected.lines);
    return;
  }
  const body = answer.json as ChangeAnswer;
  expect(answer.headers.location, `${label}: Location`).toBe(`/v1/stock/changes/${body.id}`);
  expect(body.id).toMatch(/^chg_/);
  expect({ kind: body.kind, reference: body.reference, reason: body.reason }, label).toEqual({
    kind: KIND_OF[change.route],
    reference: change.reference,
    reason: change.reason,
  });
  const lines = body.lines.map((line): AnsweredLine => ({
    line: line.line,
    sku: line.sku,
    locationCode: line.locationCode,
    lot: line.lot,
    previousQuantity: micro(line.previousQuantity),
    quantity: micro(line.quantity),
    delta: micro(line.delta),
    moved: line.movementId !== null,
  }));
  expect(lines, `${label}: the change's lines`).toEqual(expected.lines);
  for (const line of body.lines) expect({ reserved: line.reserved, available: line.available }, label).toEqual({ reserved: 0, available: line.quantity });
}

// ---------------------------------------------------------------------------------------------

const RUNS = Number(process.env.STOCK_JSON_PROPERTY_RUNS ?? process.env.RUNS ?? 10);
const SEED = process.env.STOCK_JSON_PROPERTY_SEED === undefined ? undefined : Number(process.env.STOCK_JSON_PROPERTY_SEED);

describe('stock changes over JSON mixed with stock imports (property)', () => {
  it(
    'answers every change and applies every row as the model says, all or nothing, with the ledger invariant, item totals, a feed that replays and each natural key applied once across both doors',
    { timeout: Math.max(240_000, RUNS * 15_000) },
    async () => {
      await fc.assert(
        fc.asyncProperty(reorderPoints, steps, async (points, chosenSteps) => {
          // Prepare: a fresh organization with a key, its items and locations
          const { key, record: apiKey } = await createTestKey({ scopes: ['stock:write'] });
          const { organizationId } = apiKey;
          const rp = (of: CatalogSku) => {
            const point = points[of];
            return point === null ? '' : decimal(point);
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
          const [items, locations] = await Promise.all([itemsOf(organizationId, CATALOG_SKUS), locationsOf(organizationId, LOCATIONS)]);
          const ids: Ids = {
            items: new Map(CATALOG_SKUS.map((of) => [of, items.get(of)?.record.id ?? ''])),
            locations: new Map(LOCATIONS.map((code) => [code, locations.get(code)?.record.id ?? ''])),
            codeOf: new Map([...locations.values()].map(({ record }) => [record.id, record.code])),
          };
          const itemPoints = new Map(CATALOG_SKUS.map((of) => [ids.items.get(of) ?? '', points[of]]));
          const model = new StockModel(points);
          let recordIds = new Map<string, string>();
          /** The JSON requests sent so far, with their latest answer. */
          const sent: Array<{
            step: number;
            route: StockChangeRoute;
            body: Record<string, unknown>;
            idempotencyKey: string;
            change: Change;
            answer: HandlerAnswer;
          }> = [];
          let feedLength = (await feedOf(organizationId)).length;

          for (const [index, chosen] of chosenSteps.entries()) {
            let expectedEvents: Seen[];
            let label: string;
            if (chosen.door === 'import') {
              label = `step ${index + 1} (import ${chosen.kind}, ${chosen.strategy})`;

              // Act
              const job = await runImportInProcess(organizationId, chosen.kind, fileOf(chosen), { duplicateStrategy: chosen.strategy });
              const expected = model.applyImport(chosen, job.id);

              // Assess: 1. the job's status, counts and row errors are the model's
              const total = chosen.rows.length;
              expect(job.counts, label).toEqual({
                totalRows: total,
                processedRows: total,
                created: expected.counts.created,
                updated: 0,
                skipped: expected.counts.skipped,
                failed: expected.counts.failed,
              });
              expect(job.status, label).toBe(expected.counts.failed > 0 ? 'completed_with_errors' : 'succeeded');
              const errors = await rowErrorsOf(organizationId, job.id);
              const codesByRow = new Map<number, string[]>();
              for (const error of errors) codesByRow.set(error.rowNumber, [...(codesByRow.get(error.rowNumber) ?? []), error.code].sort());
              expect(codesByRow, `${label}: row errors ${JSON.stringify(errors)}`).toEqual(expected.errors);
              expectedEvents = expected.events;
            } else if (chosen.door === 'resend') {
              const earlier = sent[chosen.which % Math.max(sent.length, 1)];
              label = `step ${index + 1} (${earlier ? `POST /v1/stock/${earlier.route} of step ${earlier.step} again, under its Idempotency-Key` : 'no JSON request to send again'})`;
              expectedEvents = [];
              if (earlier) {
                // Act
                const answer = await postStockChange(key, earlier.route, earlier.body, earlier.idempotencyKey);

                // Assess: 1. a stored 201 as it was; a refusal decided again, on the stock as it is now
                if (earlier.answer.status === 201) {
                  expect({ status: answer.status, text: answer.text }, `${label}: the stored answer`).toEqual({
                    status: earlier.answer.status,
                    text: earlier.answer.text,
                  });
                } else {
                  const expected = model.applyChange(earlier.change, recordIds, answer.status === 201 ? (answer.json as ChangeAnswer).id : 'no change');
                  expectAnswer(answer, expected, earlier.change, label);
                  if (expected.status === 201) {
                    expectedEvents = expected.events;
                    earlier.answer = answer;
                  }
                }
              }
            } else {
              const change = changeOf(chosen, model, ids, index + 1);
              const body = bodyOf(chosen, change, ids);
              label = `step ${index + 1} (POST /v1/stock/${chosen.route} ${JSON.stringify(body)})`;

              // Act
              const idempotencyKey = randomUUID();
              const answer = await postStockChange(key, chosen.route, body, idempotencyKey);
              const changeId = answer.status === 201 ? (answer.json as ChangeAnswer).id : 'no change';
              const expected = model.applyChange(change, recordIds, changeId);

              // Assess: 1. the answer is the model's; a replay under the same key answers the same
              expectAnswer(answer, expected, change, label);
              if (chosen.replay) {
                const again = await postStockChange(key, chosen.route, body, idempotencyKey);
                if (answer.status === 201)
                  expect({ status: again.status, text: again.text }, `${label}: replay`).toEqual({ status: answer.status, text: answer.text });
                else
                  expect(
                    { status: again.status, code: (again.json as Problem).code, lines: (again.json as Problem).lines, errors: (again.json as Problem).errors },
                    `${label}: replay`,
                  ).toEqual({
                    status: answer.status,
                    code: (answer.json as Problem).code,
                    lines: (answer.json as Problem).lines,
                    errors: (answer.json as Problem).errors,
                  });
              }
              expectedEvents = expected.status === 201 ? expected.events : [];
              sent.push({ step: index + 1, route: chosen.route, body, idempotencyKey, change, answer });
            }

            // 2. all or nothing: on-hand at every place is the model's; the ledger invariant; item totals
            const stored = await expectStockMatches(organizationId, ids, model, label);
            recordIds = stored.recordIds;

            // 3. the whole feed replays to the stored on-hand, low-stock where the totals crossed
            const feed = await feedOf(organizationId);
            const replayed = replayFeed(feed, itemPoints);
            for (const record of stored.records.values()) {
              expect(replayed.quantities.get(record.id), `${label}: replayed quantity of ${record.id}`).toBe(micro(record.onHand));
              expect(replayed.placeOf.get(record.id)).toBe(stockRecordKey(record.itemId, record.locationId, record.lot));
            }
            expect(replayed.quantities.size, `${label}: stock.changed names only stored records`).toBe(stored.records.size);

            // 4. the step's events are the model's, each valid; the listed stock records are the feed's
            const fresh = feed.slice(feedLength);
            expect(
              fresh.map((event) => seen(ids, event)),
              `${label}: events`,
            ).toEqual(expectedEvents);
            expectEventsMatchSchemas(fresh);
            feedLength = feed.length;
            expect(await listedStockRecords(organizationId), `${label}: listed stock records`).toEqual(stockRecordsOfFeed(feed));
          }

          // At the end: each natural key applied once across both doors — its movements are its one claim's
          const feed = await feedOf(organizationId);
          const movementsByKey = new Map<string, string[]>();
          for (const event of feed) {
            if (event.type !== 'movement.created') continue;
            const movement = seen(ids, event) as Extract<Seen, { type: 'movement.created' }>;
            const claimKey = movementClaimKey(movement);
            movementsByKey.set(claimKey, [...(movementsByKey.get(claimKey) ?? []), (event.data.movement as { id: string }).id]);
          }
          const keys = [...new Set([...model.claims.keys(), ...movementsByKey.keys()])];
          const claims = await importRecords().getByNaturalKeys(organizationId, 'stock-entry', keys);
          for (const claimKey of keys) {
            const claim = claims.get(claimKey)?.record as StockEntry | undefined;
            const movements = movementsByKey.get(claimKey) ?? [];
            expect(movements.length, `movements under ${claimKey}`).toBe(model.movementsOf.get(claimKey) ?? 0);
            expect(claim?.jobId, `who applied ${claimKey}`).toBe(model.claims.get(claimKey));
            if (claim) expect([...claim.movementIds].sort(), `the movements of ${claimKey} are its claim's`).toEqual([...movements].sort());
          }
        }),
        { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
      );
    },
  );
});
