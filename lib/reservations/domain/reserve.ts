import { ApiError, ValidationError, type FieldError } from '../../platform/core/errors.ts';
import type { EventDraft } from '../../platform/events/types.ts';
import type { Item } from '../../inventory/index.ts';
import type { Location } from '../../inventory/index.ts';
import { ArchivedError, archivedOf, newRecordId } from '../../inventory/index.ts';
import { newMovementId, stockRecordKey, sumQuantities } from '../../inventory/index.ts';
import type { CommandPlan } from '../../platform/write/ports.ts';
import { referenceOf } from '../../stock/index.ts';
import { InsufficientStockError, type ShortLine } from '../../stock/index.ts';
import { resolveReferences, wantedReferences, type Reference } from '../../stock/index.ts';
import { StockLedger, type StockSide } from '../../stock/index.ts';
import { StockState } from '../../stock/index.ts';
import { newId, ulid } from '../../platform/core/ids.ts';
import { MAX_RESERVATION_PLAN_BYTES, RESERVATION_COMMAND_WRITES, ReservationTooLargeError, reservationPlanBytes } from './limits.ts';
import { rememberRequest, remembers, type PendingHold, type PendingOperation } from './pending.ts';
import type { ReservationPorts, SliceRun, StoredReservation } from './ports.ts';
import { keptMovingOnError, OperationMovedOnError, ReservationSlices } from './slices.ts';
import { DEFAULT_RESERVATION_TTL_MS, MAX_RESERVATION_TTL_MS, ReferenceTakenError, type Reservation, type ReservationLine } from './reservation.ts';

/**
 * `POST /v1/reservations` (docs/inventory.md "Reservations and available stock"): holds each
 * line's quantity at its place, all lines or none, drawing only on what is available; a line
 * without a lot on an item tracked by lot holds the oldest lots first (receipt order), split
 * across lots, as many as it takes. One transaction when its writes fit one (the stock records
 * and totals, the reservation, the claim of its reference, the events and the audit entry), else
 * in slices (lib/reservations/domain/slices.ts): the first creates the reservation, each holds
 * the next lots, the last writes the audit entry; a race that leaves a lot short half way unwinds
 * it all and answers 409 insufficient-stock, nothing held.
 */

export interface ReservationLineInput {
  sku?: string;
  itemId?: string;
  locationCode?: string;
  locationId?: string;
  lot: string | null;
  quantity: number;
}

export interface ReservationInput {
  reference: string;
  /** ISO 8601 UTC; null: 24 h after creation. */
  expiresAt: string | null;
  lines: ReservationLineInput[];
}

/** Operations of others on the reservation holding the reference finished before a create gives up with 409 conflict. */
const MAX_FINISHES = 8;

interface PlacedLine {
  index: number;
  input: ReservationLineInput;
  item: Item;
  location: Location;
}

export class ReserveCommand<Write> {
  private readonly slices: ReservationSlices<Write>;

  constructor(private readonly ports: ReservationPorts<Write>) {
    this.slices = new ReservationSlices(ports);
  }

  /**
   * The plan of the (last) transaction of the create. `run` commits the slices before the last of
   * a larger one (without it, only creates of one transaction are possible).
   */
  async create(organizationId: string, input: ReservationInput, run?: SliceRun<Write>): Promise<CommandPlan<Reservation, Write>> {
    for (let decision = 1; ; decision += 1) {
      try {
        return await this.decide(organizationId, input, run);
      } catch (error) {
        // Another writer (a release, a create of the same reference, the expiry sweep) finished
        // this create's operation between two of its slices: decided again, it answers what a
        // retry with the same Idempotency-Key answers (the reservation as it stands, or the refusal that applies).
        if (!(error instanceof OperationMovedOnError)) throw error;
        if (decision >= MAX_FINISHES) throw keptMovingOnError();
      }
    }
  }

  private async decide(organizationId: string, input: ReservationInput, run: SliceRun<Write> | undefined): Promise<CommandPlan<Reservation, Write>> {
    const { ports } = this;
    const now = ports.clock?.() ?? new Date();
    const expiresAt = expiryOf(input.expiresAt, now);
    const id = newId('res');
    const requestKey = run?.requestKey ?? null;
    const taken = await this.holderOf(organizationId, input.reference, run);
    if (taken) {
      // This request's create, left half way by a crash (finished here) or finished by another writer since.
      if (requestKey !== null && taken.pending?.requestKey === requestKey) return this.slices.toLast(organizationId, taken, taken.pending, run);
      if (!taken.pending && remembers(taken.requests, requestKey, now))
        return { writes: [ports.reservations.unchangedWrite(organizationId, taken.reservation.id, taken.version)], events: [], result: taken.reservation };
      throw new ReferenceTakenError(input.reference, taken.reservation.id);
    }
    const lines = await this.place(organizationId, input);

    const explicit = lines.filter((line) => line.input.lot !== null || line.item.trackingMode !== 'lot');
    const recordKeys = explicit.map((line) => stockRecordKey(line.item.id, line.location.id, line.input.lot));
    const itemIds = lines.map((line) => line.item.id);
    const stock = await ports.reads.stock(organizationId, { recordKeys, itemIds, claimKeys: [] });
    const state = new StockState(
      ports.stock,
      organizationId,
      lines.map((line) => line.item),
    );
    state.know({ stockRecords: recordKeys, itemIds }, stock);

    const at = now.toISOString();
    let decided = hold(state, lines, id, at);
    // Lots of a place not read yet (oldest-first holds) are read, and the holds decided again.
    for (let round = 0; state.hasMisses() && round < 3; round += 1) {
      await state.readMisses();
      decided = hold(state, lines, id, at);
    }
    const { ledger, held, events, short } = decided;
    if (short.length > 0) throw new InsufficientStockError(short);

    const reservation: Reservation = {
      id,
      reference: input.reference,
      status: 'active',
      expiresAt,
      createdAt: at,
      updatedAt: at,
      lines: held.map((entry) => entry.line),
    };
    const bytes = reservationPlanBytes(reservation, held);
    if (bytes > MAX_RESERVATION_PLAN_BYTES) throw new ReservationTooLargeError(held.length, bytes);
    const writes = [
      ...ledger.flush().flatMap((write) => ports.stock.writesOf(organizationId, write)),
      ...ports.reservations.createWrites(organizationId, reservation, { requests: rememberRequest([], requestKey, at) }),
    ];
    if (writes.length <= RESERVATION_COMMAND_WRITES) {
      return {
        writes,
        events,
        audit: {
          kind: 'reservation.created',
          target: { kind: 'reservation', id },
          summary: `Reservation created: ${input.reference} (${held.length} line${held.length === 1 ? '' : 's'})`,
          changes: [],
        },
        result: reservation,
      };
    }
    // More than one transaction holds (many lots, or lots held in full passed over, each checked
    // unchanged in one transaction): the lots as decided, held in slices, each on what it reads.
    const pending: PendingOperation = { kind: 'create', id: ulid(), requestKey, startedAt: at, slicesDone: 0, holds: held };
    return this.slices.toLast(organizationId, { reservation: { ...reservation, lines: [] }, version: 0, requests: [] }, pending, run);
  }

  /** The reservation holding `reference`, once any operation another request left in progress on it is finished. */
  private async holderOf(organizationId: string, reference: string, run: SliceRun<Write> | undefined): Promise<StoredReservation | undefined> {
    for (let finished = 0; ; finished += 1) {
      const id = await this.ports.reservations.idOfReference(organizationId, reference);
      const stored = id === undefined ? undefined : await this.ports.reservations.get(organizationId, id);
      if (!stored?.pending || (run && stored.pending.requestKey === run.requestKey && run.requestKey !== null)) return stored;
      if (finished >= MAX_FINISHES)
        throw new ApiError(409, 'customer-api.request.conflict', 'Conflict', {
          detail: 'The reservation holding this reference kept changing while it was read; retry the request.',
        });
      await this.slices.finish(organizationId, stored, run);
    }
  }

  /** Each line with its item and location; unknown ones and lot-rule breaches are one 400. */
  private async place(organizationId: string, input: ReservationInput): Promise<PlacedLine[]> {
    const itemReferences = input.lines.map((line, index) => referenceOf(line.sku, line.itemId, `/lines/${index}/${line.sku === undefined ? 'itemId' : 'sku'}`));
    const locationReferences = input.lines.map((line, index) =>
      referenceOf(line.locationCode, line.locationId, `/lines/${index}/${line.locationCode === undefined ? 'locationId' : 'locationCode'}`),
    );
    const found = await this.ports.reads.references(organizationId, { ...wantedReferences(itemReferences, locationReferences), claimKeys: [] });
    const resolved = resolveReferences(found, itemReferences, locationReferences);
    const errors: FieldError[] = [];
    const lines = input.lines.map((line, index) => {
      const item = resolved.item(itemReferences[index] as Reference);
      // A line may leave out the lot of an item tracked by lot (oldest lots first); an item not tracked by lot has none.
      if (item.trackingMode !== 'lot' && line.lot !== null)
        errors.push({
          location: 'body',
          pointer: `/lines/${index}/lot`,
          code: 'lot-not-allowed',
          message: `Item "${item.sku}" is not tracked by lot: leave lot out.`,
        });
      return { index, input: line, item, location: resolved.location(locationReferences[index] as Reference) };
    });
    if (errors.length > 0) throw new ValidationError(errors, 'Lines break the lot rules of their items; see `errors`.');
    return lines;
  }
}

/** The holds of every line in order on a new ledger: the reservation's lines, their events and the short lines. */
function hold(state: StockState, lines: PlacedLine[], reservationId: string, at: string) {
  const ledger = new StockLedger(state, { stockRecord: () => newRecordId('stock-record'), movement: newMovementId });
  const held: PendingHold[] = [];
  const events: EventDraft[] = [];
  const short: ShortLine[] = [];
  for (const line of lines) {
    const { item, location, input } = line;
    // An archived item or location holds no new stock (docs/inventory.md "Writing the catalog").
    const archived = archivedOf(item, location);
    if (archived) throw new ArchivedError(archived, archived === 'item' ? item.sku : location.code, [lines.indexOf(line)]);
    ledger.begin();
    const sides: Array<[StockSide, number]> =
      input.lot !== null || item.trackingMode !== 'lot'
        ? [[{ location, lot: input.lot }, input.quantity]]
        : oldestFirst(ledger, item, location, input.quantity);
    const wanted = sumQuantities(sides.map(([, quantity]) => quantity));
    const placed: ReservationLine[] = [];
    let available = 0;
    for (const [side, quantity] of sides) {
      const result = ledger.hold({ item, side, quantity, reservationId, occurredAt: at });
      if (!result.ok) {
        available = result.available;
        break;
      }
      placed.push({
        lineId: newId('rsl'),
        itemId: item.id,
        sku: item.sku,
        locationId: location.id,
        locationCode: location.code,
        lot: side.lot,
        stockRecordId: result.record.id,
        quantity,
        fulfilledQuantity: 0,
        releasedQuantity: 0,
      });
    }
    if (placed.length < sides.length || wanted < input.quantity) {
      ledger.rollback();
      const first = sides[0]?.[0];
      const record = first ? state.stockRecord(stockRecordKey(item.id, location.id, first.lot))?.record : undefined;
      short.push({
        line: line.index,
        stockRecordId: input.lot !== null || item.trackingMode !== 'lot' ? (record?.id ?? null) : null,
        available: wanted < input.quantity ? wanted : available,
        requested: input.quantity,
      });
      continue;
    }
    events.push(...ledger.endUnit().events);
    held.push(...placed.map((placedLine) => ({ line: placedLine, requestLine: line.index, requested: input.quantity })));
  }
  return { ledger, held, events, short };
}

/** The lots of the place to hold `quantity` from, oldest first, each for what it has available; less in total when the place has less. */
function oldestFirst(ledger: StockLedger, item: Item, location: Location, quantity: number): Array<[StockSide, number]> {
  const sides: Array<[StockSide, number]> = [];
  let left = quantity;
  for (const lot of ledger.lotsWithStockAt(item, location)) {
    if (left <= 0) break;
    const side = { location, lot };
    const take = Math.min(left, ledger.available(item, side));
    if (take <= 0) continue;
    sides.push([side, take]);
    left = sumQuantities([left, -take]);
  }
  return sides;
}

/** `expiresAt` as given (in the future, at most 30 days ahead), or 24 h after now. */
function expiryOf(expiresAt: string | null, now: Date): string {
  if (expiresAt === null) return new Date(now.getTime() + DEFAULT_RESERVATION_TTL_MS).toISOString();
  const time = Date.parse(expiresAt);
  const refuse = (message: string) => new ValidationError([{ location: 'body', pointer: '/expiresAt', code: 'invalid-value', message }], message);
  if (!(time > now.getTime())) throw refuse('expiresAt must be in the future.');
  if (time > now.getTime() + MAX_RESERVATION_TTL_MS) throw refuse('expiresAt must be at most 30 days after now.');
  return new Date(time).toISOString();
}
