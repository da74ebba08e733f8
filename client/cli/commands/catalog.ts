import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createItem, createLocation, updateItem, updateLocation } from '../../catalog/catalog-writes.ts';
import type { ItemCreate, ItemPatch, LocationCreate, LocationPatch } from '../../types.ts';
import { unwrap } from '../../unwrap.ts';
import { clientFor, GLOBAL_OPTIONS, UsageError, type CliContext } from '../context.ts';

/**
 * `items create|update` and `locations create|update` (docs/client.md#cli, docs/inventory.md
 * "Writing the catalog"): the body from flags or from a JSON file (`--file`), the record written
 * printed as JSON. `--clear FIELD` (repeatable) sends `null` for a field; `--if-match` takes a
 * version or an ETag.
 */

export const CATALOG_USAGE = `items create (--sku SKU --name NAME [--unit U] [--description D] [--category C] [--barcode B]
              [--reorder-point N] [--tracking-mode none|lot] | --file BODY.json)
    Creates an item and prints it as JSON.

  items update (--id ID | --sku SKU) [--if-match VERSION] [--new-sku SKU] [--name NAME] [--unit U]
              [--description D] [--category C] [--barcode B] [--reorder-point N] [--tracking-mode none|lot]
              [--status active|archived] [--clear FIELD]... [--file PATCH.json]
    Changes an item (a merge patch: --clear FIELD sends null) and prints it as JSON.

  locations create (--code CODE --name NAME [--type warehouse|zone|bin] [--parent-code CODE | --parent-id ID]
                  | --file BODY.json)
    Creates a location and prints it as JSON.

  locations update (--id ID | --code CODE) [--if-match VERSION] [--new-code CODE] [--name NAME] [--type T]
                  [--parent-code CODE | --parent-id ID] [--status active|archived] [--clear FIELD]... [--file PATCH.json]
    Changes a location and prints it as JSON.`;

const ITEM_FLAGS = {
  name: { type: 'string' },
  unit: { type: 'string' },
  description: { type: 'string' },
  category: { type: 'string' },
  barcode: { type: 'string' },
  'reorder-point': { type: 'string' },
  'tracking-mode': { type: 'string' },
} as const;

const LOCATION_FLAGS = { name: { type: 'string' }, type: { type: 'string' }, 'parent-code': { type: 'string' }, 'parent-id': { type: 'string' } } as const;

const UPDATE_FLAGS = { id: { type: 'string' }, 'if-match': { type: 'string' }, status: { type: 'string' }, clear: { type: 'string', multiple: true } } as const;

/** `--flag-name` → `flagName`. */
const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());

async function bodyOf(values: Record<string, unknown>, flags: readonly string[], renames: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const fromFile = typeof values.file === 'string' ? (JSON.parse(await readFile(values.file, 'utf8')) as unknown) : {};
  if (typeof fromFile !== 'object' || fromFile === null || Array.isArray(fromFile)) throw new UsageError('--file must hold a JSON object.');
  const body: Record<string, unknown> = { ...(fromFile as Record<string, unknown>) };
  for (const flag of flags) {
    const value = values[flag];
    if (typeof value !== 'string') continue;
    const field = renames[flag] ?? camel(flag);
    body[field] = field === 'reorderPoint' ? numberOf(flag, value) : value;
  }
  for (const field of (values.clear as string[] | undefined) ?? []) body[camel(field)] = null;
  return body;
}

function numberOf(flag: string, value: string): number {
  if (!/^(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(value)) throw new UsageError(`--${flag} must be a plain number such as 12 or 2.5, not '${value}'.`);
  return Number(value);
}

/** A version (`3`) or an ETag (`"3"`). */
const ifMatchOf = (value: unknown) => (typeof value !== 'string' ? undefined : /^[0-9]+$/.test(value) ? Number(value) : value);

function print(context: CliContext, record: unknown): number {
  context.stdout.write(`${JSON.stringify(record, null, 2)}\n`);
  return 0;
}

/** `items create`. */
export async function itemsCreate(args: string[], context: CliContext): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { ...GLOBAL_OPTIONS, ...ITEM_FLAGS, sku: { type: 'string' }, file: { type: 'string' } } });
  const body = await bodyOf(values, ['sku', ...Object.keys(ITEM_FLAGS)]);
  if (body.sku === undefined || body.name === undefined) throw new UsageError('items create needs --sku and --name (or a --file that has them).');
  return print(context, await createItem(clientFor(values, context), body as ItemCreate, { signal: context.signal }));
}

/** `items update`: the item by id, or by sku (read first). */
export async function itemsUpdate(args: string[], context: CliContext): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: { ...GLOBAL_OPTIONS, ...ITEM_FLAGS, ...UPDATE_FLAGS, sku: { type: 'string' }, 'new-sku': { type: 'string' }, file: { type: 'string' } },
  });
  if ((values.sku === undefined) === (values.id === undefined)) throw new UsageError('items update needs exactly one of --sku and --id.');
  const client = clientFor(values, context);
  const id =
    values.id ??
    (await unwrap(client.api.GET('/v1/items', { params: { query: { sku: values.sku, includeArchived: true } }, signal: context.signal }))).data[0]?.id;
  if (id === undefined) throw new UsageError(`No item with sku '${values.sku ?? ''}'.`);
  const patch = await bodyOf(values, ['new-sku', 'status', ...Object.keys(ITEM_FLAGS)], { 'new-sku': 'sku' });
  const ifMatch = ifMatchOf(values['if-match']);
  return print(context, await updateItem(client, id, patch as ItemPatch, { signal: context.signal, ...(ifMatch === undefined ? {} : { ifMatch }) }));
}

/** `locations create`. */
export async function locationsCreate(args: string[], context: CliContext): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { ...GLOBAL_OPTIONS, ...LOCATION_FLAGS, code: { type: 'string' }, file: { type: 'string' } } });
  const body = await bodyOf(values, ['code', ...Object.keys(LOCATION_FLAGS)]);
  if (body.code === undefined || body.name === undefined) throw new UsageError('locations create needs --code and --name (or a --file that has them).');
  return print(context, await createLocation(clientFor(values, context), body as LocationCreate, { signal: context.signal }));
}

/** `locations update`: the location by id, or by code (read first). */
export async function locationsUpdate(args: string[], context: CliContext): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: { ...GLOBAL_OPTIONS, ...LOCATION_FLAGS, ...UPDATE_FLAGS, code: { type: 'string' }, 'new-code': { type: 'string' }, file: { type: 'string' } },
  });
  if ((values.code === undefined) === (values.id === undefined)) throw new UsageError('locations update needs exactly one of --code and --id.');
  const client = clientFor(values, context);
  const id =
    values.id ??
    (await unwrap(client.api.GET('/v1/locations', { params: { query: { code: values.code, includeArchived: true } }, signal: context.signal }))).data[0]?.id;
  if (id === undefined) throw new UsageError(`No location with code '${values.code ?? ''}'.`);
  const patch = await bodyOf(values, ['new-code', 'status', ...Object.keys(LOCATION_FLAGS)], { 'new-code': 'code' });
  const ifMatch = ifMatchOf(values['if-match']);
  return print(context, await updateLocation(client, id, patch as LocationPatch, { signal: context.signal, ...(ifMatch === undefined ? {} : { ifMatch }) }));
}
