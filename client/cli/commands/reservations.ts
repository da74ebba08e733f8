import { parseArgs } from 'node:util';
import type { InventoryClient } from '../../create-client.ts';
import type { operations } from '../../generated/api-types.ts';
import { paginate } from '../../pagination/paginate.ts';
import { unwrap } from '../../unwrap.ts';
import { bodyOfFile, lineOf, type LineField } from '../line-flags.ts';
import { clientFor, GLOBAL_OPTIONS, positiveInteger, UsageError } from '../context.ts';
import { explainingRefusals, type CommandHandler } from '../refusals.ts';

/**
 * `reservations create|list|get|release|fulfil` (docs/client.md#cli; docs/inventory.md
 * "Reservations and available stock"): stock held for an order or a build until it is released,
 * fulfilled or expires. A reservation's lines are given as `--line name=value,…` flags (as the
 * `stock` commands take theirs) or the whole body as `--file BODY.json`; a reservation is printed
 * as JSON, a list as JSON lines.
 */

type CreateBody = operations['createReservation']['requestBody']['content']['application/json'];
type SettleBody = NonNullable<operations['releaseReservation']['requestBody']>['content']['application/json'];
type Status = NonNullable<NonNullable<operations['listReservations']['parameters']['query']>['status']>;
type Settle = 'release' | 'fulfil';

const STATUSES: readonly Status[] = ['active', 'released', 'fulfilled', 'expired'];

/** A `--line` part: the body field it fills and how its value is read. */
const CREATE_LINE: Record<string, LineField> = {
  sku: { field: 'sku', value: 'text', required: true },
  location: { field: 'locationCode', value: 'text', required: true },
  quantity: { field: 'quantity', value: 'number', required: true },
  lot: { field: 'lot', value: 'text', required: false },
};

const SETTLE_LINE: Record<string, LineField> = {
  lineId: { field: 'lineId', value: 'text', required: true },
  quantity: { field: 'quantity', value: 'number', required: true },
};

/** release and fulfil differ only in their route. */
const SETTLE: Record<
  Settle,
  (client: InventoryClient, id: string, body: SettleBody | undefined, header: { 'Idempotency-Key': string }, signal: AbortSignal) => Promise<unknown>
> = {
  release: (client, id, body, header, signal) =>
    unwrap(client.api.POST('/v1/reservations/{id}/release', { params: { path: { id }, header }, ...(body === undefined ? {} : { body }), signal })),
  fulfil: (client, id, body, header, signal) =>
    unwrap(client.api.POST('/v1/reservations/{id}/fulfil', { params: { path: { id }, header }, ...(body === undefined ? {} : { body }), signal })),
};

export const RESERVATIONS_USAGE = `reservations create --reference REF [--expires-at DATE-TIME] (--line sku=SKU,location=CODE,quantity=N[,lot=LOT]… | --file BODY.json) [--idempotency-key KEY]
    Holds available stock: all lines (1 to 20) or none; an item tracked by lot without lot= is
    held oldest lots first. Expires 24 h after creation unless --expires-at says otherwise (at most
    30 days ahead). A file holds the request body as the API takes it (then no other flag but
    --idempotency-key). Prints the reservation as JSON.

  reservations list [--reference REF] [--status active|released|fulfilled|expired] [--item-id ID] [--limit N]
    Prints the reservations, oldest first, one JSON object a line, all pages (--limit: page size, 200).

  reservations get --id ID
    Prints the reservation as JSON.

  reservations release --id ID [--line lineId=rsl_…,quantity=N…] [--idempotency-key KEY]
  reservations fulfil --id ID [--line lineId=rsl_…,quantity=N…] [--idempotency-key KEY]
    Releases what the reservation holds back to available, or ships it (shipment movements out of
    on-hand): the lines given, each at most what it has left, or without --line everything left.
    Prints the reservation after it as JSON.

    A refusal (409 insufficient-stock, reference-taken, not-active, over-quantity; 404 not-found)
    is printed on stderr with the lines it names (what is available, what a line has left), exit 1.`;

/** A refusal names the reservation it is about (reference-taken) and its status (not-active). */
const explainingReservationRefusals = (handler: CommandHandler) =>
  explainingRefusals(handler, ({ reservationId, reservationStatus }) => [
    reservationId && `reservation ${reservationId}`,
    reservationStatus && `status ${reservationStatus}`,
  ]);

/** `reservations create`. */
export const reservationsCreate = explainingReservationRefusals(async (args, context) => {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      ...GLOBAL_OPTIONS,
      reference: { type: 'string' },
      'expires-at': { type: 'string' },
      line: { type: 'string', multiple: true },
      file: { type: 'string' },
      'idempotency-key': { type: 'string' },
    },
  });
  let body: CreateBody;
  if (values.file !== undefined) {
    const others = (['reference', 'expires-at', 'line'] as const).filter((flag) => values[flag] !== undefined);
    if (others.length > 0)
      throw new UsageError(`reservations create takes either --file or --reference and --line, not both (${others.map((flag) => `--${flag}`).join(', ')}).`);
    body = await bodyOfFile<CreateBody>(values.file);
  } else {
    if (values.reference === undefined) throw new UsageError('reservations create needs --reference (or --file).');
    if (!values.line || values.line.length === 0) throw new UsageError('reservations create needs at least one --line (or --file).');
    // The server checks the values themselves (quantities, the date-time, the number of lines).
    body = {
      reference: values.reference,
      ...(values['expires-at'] === undefined ? {} : { expiresAt: values['expires-at'] }),
      lines: values.line.map((line) => lineOf(line, CREATE_LINE)) as CreateBody['lines'],
    };
  }
  const client = clientFor(values, context);
  // One key for the request's retries: a retried create is answered, never held twice.
  const header = { 'Idempotency-Key': values['idempotency-key'] ?? crypto.randomUUID() };
  const reservation = await unwrap(client.api.POST('/v1/reservations', { params: { header }, body, signal: context.signal }));
  context.stdout.write(`${JSON.stringify(reservation, null, 2)}\n`);
  return 0;
});

/** `reservations list`: every page, one JSON object a line. */
export const reservationsList = explainingReservationRefusals(async (args, context) => {
  const { values } = parseArgs({
    args,
    strict: true,
    options: { ...GLOBAL_OPTIONS, reference: { type: 'string' }, status: { type: 'string' }, 'item-id': { type: 'string' }, limit: { type: 'string' } },
  });
  const status = values.status;
  if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) throw new UsageError(`--status is ${STATUSES.join(', ')}, not '${status}'.`);
  const limit = values.limit === undefined ? 200 : positiveInteger('--limit', values.limit);
  const client = clientFor(values, context);
  const filters = {
    limit,
    ...(values.reference === undefined ? {} : { reference: values.reference }),
    ...(status === undefined ? {} : { status: status as Status }),
    ...(values['item-id'] === undefined ? {} : { itemId: values['item-id'] }),
  };
  const reservations = paginate(
    (cursor) =>
      unwrap(client.api.GET('/v1/reservations', { params: { query: { ...filters, ...(cursor === undefined ? {} : { cursor }) } }, signal: context.signal })),
    'GET /v1/reservations',
  );
  for await (const reservation of reservations) context.stdout.write(`${JSON.stringify(reservation)}\n`);
  return 0;
});

/** `reservations get`. */
export const reservationsGet = explainingReservationRefusals(async (args, context) => {
  const { values } = parseArgs({ args, strict: true, options: { ...GLOBAL_OPTIONS, id: { type: 'string' } } });
  if (values.id === undefined) throw new UsageError('reservations get needs --id ID.');
  const client = clientFor(values, context);
  const reservation = await unwrap(client.api.GET('/v1/reservations/{id}', { params: { path: { id: values.id } }, signal: context.signal }));
  context.stdout.write(`${JSON.stringify(reservation, null, 2)}\n`);
  return 0;
});

/** The handler of `reservations release|fulfil`: the lines given, or with no --line no body (everything left). */
export function reservationsSettle(command: Settle): CommandHandler {
  return explainingReservationRefusals(async (args, context) => {
    const { values } = parseArgs({
      args,
      strict: true,
      options: { ...GLOBAL_OPTIONS, id: { type: 'string' }, line: { type: 'string', multiple: true }, 'idempotency-key': { type: 'string' } },
    });
    if (values.id === undefined) throw new UsageError(`reservations ${command} needs --id ID.`);
    const body =
      values.line === undefined || values.line.length === 0 ? undefined : ({ lines: values.line.map((line) => lineOf(line, SETTLE_LINE)) } as SettleBody);
    const client = clientFor(values, context);
    const header = { 'Idempotency-Key': values['idempotency-key'] ?? crypto.randomUUID() };
    const reservation = await SETTLE[command](client, values.id, body, header, context.signal);
    context.stdout.write(`${JSON.stringify(reservation, null, 2)}\n`);
    return 0;
  });
}
