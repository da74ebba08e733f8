import { parseArgs } from 'node:util';
import { paginate } from '../../pagination/paginate.ts';
import { unwrap } from '../../unwrap.ts';
import { clientFor, GLOBAL_OPTIONS, UsageError, type CliContext } from '../context.ts';

export const ITEMS_GET_USAGE = `items get (--sku SKU | --id ID)
    Prints the item as JSON (docs/inventory.md "Reading inventory").`;

export const ITEMS_AVAILABILITY_USAGE = `items availability (--sku SKU | --id ID)
    Prints the item's on-hand, reserved and available quantities as JSON: its totals, then each
    location and lot, every page (docs/inventory.md "Reservations and available stock").`;

export const STOCK_LIST_USAGE = `stock list [--location CODE] [--sku SKU] [--lot LOT] [--non-zero]
    Prints the stock records, one JSON object a line, all pages.`;

/** `items get` (docs/client.md#cli). */
export async function itemsGet(args: string[], context: CliContext): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { ...GLOBAL_OPTIONS, sku: { type: 'string' }, id: { type: 'string' } } });
  if ((values.sku === undefined) === (values.id === undefined)) throw new UsageError('items get needs exactly one of --sku and --id.');
  const client = clientFor(values, context);
  const item =
    values.id === undefined
      ? (await unwrap(client.api.GET('/v1/items', { params: { query: { sku: values.sku } }, signal: context.signal }))).data[0]
      : await unwrap(client.api.GET('/v1/items/{id}', { params: { path: { id: values.id } }, signal: context.signal }));
  if (item === undefined) {
    context.stderr.write(`No item with sku '${values.sku ?? ''}'.\n`);
    return 1;
  }
  context.stdout.write(`${JSON.stringify(item, null, 2)}\n`);
  return 0;
}

/** `items availability` (docs/client.md#cli): the item by sku or id, then its availability, every page merged into one. */
export async function itemsAvailability(args: string[], context: CliContext): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { ...GLOBAL_OPTIONS, sku: { type: 'string' }, id: { type: 'string' } } });
  if ((values.sku === undefined) === (values.id === undefined)) throw new UsageError('items availability needs exactly one of --sku and --id.');
  const client = clientFor(values, context);
  const signal = context.signal;
  const id = values.id ?? (await unwrap(client.api.GET('/v1/items', { params: { query: { sku: values.sku } }, signal }))).data[0]?.id;
  if (id === undefined) {
    context.stderr.write(`No item with sku '${values.sku ?? ''}'.\n`);
    return 1;
  }
  let afterLocationId: string | undefined;
  let merged: (Awaited<ReturnType<typeof availabilityPage>> & { locations: unknown[] }) | undefined;
  do {
    const page = await availabilityPage(client, id, afterLocationId, signal);
    merged = merged === undefined ? page : { ...merged, locations: [...merged.locations, ...page.locations] };
    afterLocationId = page.nextAfterLocationId ?? undefined;
  } while (afterLocationId !== undefined);
  context.stdout.write(`${JSON.stringify({ ...merged, truncated: false, nextAfterLocationId: null }, null, 2)}\n`);
  return 0;
}

function availabilityPage(client: ReturnType<typeof clientFor>, id: string, afterLocationId: string | undefined, signal: AbortSignal | undefined) {
  return unwrap(
    client.api.GET('/v1/items/{id}/availability', { params: { path: { id }, query: afterLocationId === undefined ? {} : { afterLocationId } }, signal }),
  );
}

/** `stock list` (docs/client.md#cli): codes and skus are looked up first, then every page is printed. */
export async function stockList(args: string[], context: CliContext): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      ...GLOBAL_OPTIONS,
      location: { type: 'string' },
      sku: { type: 'string' },
      lot: { type: 'string' },
      'non-zero': { type: 'boolean', default: false },
    },
  });
  const client = clientFor(values, context);
  const signal = context.signal;
  const firstId = async (found: Promise<{ data: Array<{ id: string }> }>) => (await found).data[0]?.id;
  const locationId =
    values.location === undefined
      ? undefined
      : await firstId(unwrap(client.api.GET('/v1/locations', { params: { query: { code: values.location } }, signal })));
  const itemId = values.sku === undefined ? undefined : await firstId(unwrap(client.api.GET('/v1/items', { params: { query: { sku: values.sku } }, signal })));
  const missing = [
    values.location !== undefined && locationId === undefined && `location with code '${values.location}'`,
    values.sku !== undefined && itemId === undefined && `item with sku '${values.sku}'`,
  ].filter(Boolean);
  if (missing.length > 0) {
    context.stderr.write(`No ${missing.join(' and no ')}.\n`);
    return 1;
  }
  const filters = {
    limit: 200,
    nonZero: values['non-zero'],
    ...(locationId === undefined ? {} : { locationId }),
    ...(itemId === undefined ? {} : { itemId }),
    ...(values.lot === undefined ? {} : { lot: values.lot }),
  };
  const records = paginate(
    (cursor) => unwrap(client.api.GET('/v1/stock-records', { params: { query: { ...filters, ...(cursor === undefined ? {} : { cursor }) } }, signal })),
    'GET /v1/stock-records',
  );
  for await (const record of records) context.stdout.write(`${JSON.stringify(record)}\n`);
  return 0;
}
