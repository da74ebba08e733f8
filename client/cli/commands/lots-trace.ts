import { parseArgs } from 'node:util';
import { traceLot, traceLotAll } from '../../lots/trace-lot.ts';
import type { LotTraceDirection } from '../../types.ts';
import { clientFor, GLOBAL_OPTIONS, UsageError, type CliContext } from '../context.ts';

export const LOTS_TRACE_USAGE = `lots trace --sku SKU --lot LOT --direction forward|backward [--depth N] [--first-page]
    Prints the lot's trace through builds as JSON (docs/inventory.md "Tracing a lot"): forward,
    the lots made from it; backward, the lots it was made from. Depth 1..10 (default 5). Every
    continuation of a trace past 1000 nodes is followed, unless --first-page.`;

const DIRECTIONS: readonly LotTraceDirection[] = ['forward', 'backward'];

/** `lots trace` (docs/client.md#cli). */
export async function lotsTrace(args: string[], context: CliContext): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      ...GLOBAL_OPTIONS,
      sku: { type: 'string' },
      lot: { type: 'string' },
      direction: { type: 'string' },
      depth: { type: 'string' },
      'first-page': { type: 'boolean', default: false },
    },
  });
  if (values.sku === undefined || values.lot === undefined) throw new UsageError('lots trace needs --sku and --lot.');
  const direction = DIRECTIONS.find((known) => known === values.direction);
  if (direction === undefined) throw new UsageError('lots trace needs --direction forward or --direction backward.');
  // The API judges the range (1..10) and answers a problem the CLI prints; here only a number.
  const depth = values.depth === undefined ? undefined : Number(values.depth);
  if (depth !== undefined && !Number.isInteger(depth)) throw new UsageError('--depth must be a whole number (1..10).');
  const client = clientFor(values, context);
  const request = { sku: values.sku, lot: values.lot, direction, ...(depth === undefined ? {} : { depth }), signal: context.signal };
  const trace = values['first-page'] ? await traceLot(client, request) : await traceLotAll(client, request);
  context.stdout.write(`${JSON.stringify(trace, null, 2)}\n`);
  return 0;
}
