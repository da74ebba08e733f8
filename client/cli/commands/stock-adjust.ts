import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { operations } from '../../generated/api-types.ts';
import { unwrap } from '../../unwrap.ts';
import { clientFor, GLOBAL_OPTIONS, UsageError, type CliContext } from '../context.ts';

export const STOCK_ADJUST_USAGE = `stock adjust --reference REF [--reason TEXT] (--line sku=SKU,location=CODE,delta=N,expected=N|null[,lot=LOT]… | --file BODY.json) [--idempotency-key KEY]
    Adjusts stock in one request, all lines or none, each line compared with the on-hand it expects
    (docs/inventory.md "Writing stock over JSON"); prints the stock change as JSON. A file holds
    the request body as the API takes it (then --reference and --line are not given).`;

type AdjustmentBody = operations['adjustStock']['requestBody']['content']['application/json'];
type AdjustmentLine = AdjustmentBody['lines'][number];

/** `stock adjust` (docs/client.md#cli). */
export async function stockAdjust(args: string[], context: CliContext): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: { ...GLOBAL_OPTIONS, reference: { type: 'string' }, reason: { type: 'string' }, line: { type: 'string', multiple: true }, file: { type: 'string' }, 'idempotency-key': { type: 'string' } },
  });
  const body = values.file === undefined ? bodyOfFlags(values) : await bodyOfFile(values);
  const client = clientFor(values, context);
  // One key for the request's retries: a retried change is answered, never applied twice.
  const header = { 'Idempotency-Key': values['idempotency-key'] ?? crypto.randomUUID() };
  const change = await unwrap(client.api.POST('/v1/stock/adjustments', { params: { header }, body, signal: context.signal }));
  context.stdout.write(`${JSON.stringify(change, null, 2)}\n`);
  return 0;
}

async function bodyOfFile(values: { file?: string; reference?: string; line?: string[] }): Promise<AdjustmentBody> {
  if (values.reference !== undefined || values.line !== undefined) throw new UsageError('stock adjust takes either --file or --reference with --line, not both.');
  try {
    return JSON.parse(await readFile(values.file ?? '', 'utf8')) as AdjustmentBody;
  } catch (error) {
    throw new UsageError(`--file ${values.file}: ${(error as Error).message}`);
  }
}

function bodyOfFlags(values: { reference?: string; reason?: string; line?: string[] }): AdjustmentBody {
  if (values.reference === undefined) throw new UsageError('stock adjust needs --reference (or --file).');
  if (!values.line || values.line.length === 0) throw new UsageError('stock adjust needs at least one --line (or --file).');
  return { reference: values.reference, ...(values.reason === undefined ? {} : { reason: values.reason }), lines: values.line.map(lineOf) };
}

/** `sku=WIDGET,location=A1,delta=-3,expected=10[,lot=L1]`: the server checks the values themselves. */
function lineOf(flag: string): AdjustmentLine {
  const fields = new Map<string, string>();
  for (const part of flag.split(',')) {
    const separator = part.indexOf('=');
    if (separator <= 0) throw new UsageError(`--line ${flag}: each part is name=value.`);
    fields.set(part.slice(0, separator).trim(), part.slice(separator + 1).trim());
  }
  const unknown = [...fields.keys()].filter((name) => !['sku', 'location', 'delta', 'expected', 'lot'].includes(name));
  if (unknown.length > 0) throw new UsageError(`--line ${flag}: unknown ${unknown.join(', ')} (sku, location, delta, expected, lot).`);
  const sku = fields.get('sku');
  const location = fields.get('location');
  const delta = fields.get('delta');
  const expected = fields.get('expected');
  if (sku === undefined || location === undefined || delta === undefined || expected === undefined) throw new UsageError(`--line ${flag}: sku, location, delta and expected are required (expected=null opts out of the check).`);
  return {
    sku,
    locationCode: location,
    quantityDelta: numberOf(flag, 'delta', delta),
    expectedQuantity: expected === 'null' ? null : numberOf(flag, 'expected', expected),
    ...(fields.has('lot') ? { lot: fields.get('lot') ?? null } : {}),
  };
}

function numberOf(flag: string, name: string, value: string): number {
  if (!/^-?[0-9]+(\.[0-9]+)?$/.test(value)) throw new UsageError(`--line ${flag}: ${name} must be a number, not '${value}'.`);
  return Number(value);
}
