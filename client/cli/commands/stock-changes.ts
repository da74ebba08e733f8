import { parseArgs } from 'node:util';
import type { InventoryClient } from '../../create-client.ts';
import type { operations } from '../../generated/api-types.ts';
import { unwrap } from '../../unwrap.ts';
import { bodyOfFile, lineOf, type LineField } from '../line-flags.ts';
import { clientFor, GLOBAL_OPTIONS, UsageError, type CliContext } from '../context.ts';

/**
 * `stock adjust|transfer|count|receive` (docs/client.md#cli): one stock change over JSON, all lines
 * or none (docs/inventory.md "Writing stock over JSON"), its lines given as `--line name=value,…`
 * flags or the whole body as `--file BODY.json`; prints the stock change as JSON.
 */

type BodyOf<Operation extends 'adjustStock' | 'transferStock' | 'countStock' | 'receiveStock'> =
  operations[Operation]['requestBody']['content']['application/json'];
type Bodies = { adjust: BodyOf<'adjustStock'>; transfer: BodyOf<'transferStock'>; count: BodyOf<'countStock'>; receive: BodyOf<'receiveStock'> };
type Command = keyof Bodies;

/** A flag of the change itself (not of a line): the body field it fills. */
interface ChangeFlag {
  flag: string;
  field: string;
  required: boolean;
}

interface ChangeCommand {
  flags: ChangeFlag[];
  line: Record<string, LineField>;
  send(client: InventoryClient, body: Bodies[Command], header: { 'Idempotency-Key': string }, signal: AbortSignal | undefined): Promise<unknown>;
}

const text = (field: string, required = true): LineField => ({ field, value: 'text', required });
const number = (field: string): LineField => ({ field, value: 'number', required: true });
const expected = (required = true): LineField => ({ field: 'expectedQuantity', value: 'expected', required });
const lot = text('lot', false);

const COMMANDS: Record<Command, ChangeCommand> = {
  adjust: {
    flags: [
      { flag: 'reference', field: 'reference', required: true },
      { flag: 'reason', field: 'reason', required: false },
    ],
    line: { sku: text('sku'), location: text('locationCode'), delta: number('quantityDelta'), expected: expected(), lot },
    send: (client, body, header, signal) => unwrap(client.api.POST('/v1/stock/adjustments', { params: { header }, body: body as Bodies['adjust'], signal })),
  },
  transfer: {
    flags: [{ flag: 'reference', field: 'reference', required: true }],
    line: { sku: text('sku'), from: text('fromLocationCode'), to: text('toLocationCode'), quantity: number('quantity'), expected: expected(), lot },
    send: (client, body, header, signal) => unwrap(client.api.POST('/v1/stock/transfers', { params: { header }, body: body as Bodies['transfer'], signal })),
  },
  count: {
    flags: [
      { flag: 'count-reference', field: 'countReference', required: true },
      { flag: 'location', field: 'locationCode', required: true },
    ],
    line: { sku: text('sku'), counted: number('countedQuantity'), expected: expected(), lot },
    send: (client, body, header, signal) => unwrap(client.api.POST('/v1/stock/counts', { params: { header }, body: body as Bodies['count'], signal })),
  },
  receive: {
    flags: [
      { flag: 'po-number', field: 'poNumber', required: true },
      { flag: 'received-at', field: 'receivedAt', required: false },
    ],
    line: { sku: text('sku'), location: text('locationCode'), quantity: number('quantity'), expected: expected(false), lot },
    send: (client, body, header, signal) => unwrap(client.api.POST('/v1/stock/receipts', { params: { header }, body: body as Bodies['receive'], signal })),
  },
};

function usageOf(command: Command, summary: string): string {
  const { flags, line } = COMMANDS[command];
  const changeFlags = flags.map(({ flag, required }) => (required ? `--${flag} ${flag.toUpperCase()}` : `[--${flag} ${flag.toUpperCase()}]`)).join(' ');
  const lineParts = Object.entries(line)
    .map(
      ([name, { value, required }]) =>
        `${required ? '' : '['}${name}=${value === 'text' ? name.toUpperCase() : value === 'number' ? 'N' : 'N|null'}${required ? '' : ']'}`,
    )
    .join(',');
  return `stock ${command} ${changeFlags} (--line ${lineParts}… | --file BODY.json) [--idempotency-key KEY]\n    ${summary}`;
}

export const STOCK_CHANGES_USAGE = [
  usageOf('adjust', 'Adjusts stock, each line compared with the on-hand it expects (expected=null: not compared).'),
  usageOf('transfer', 'Moves stock between locations; expected is the source’s on-hand.'),
  usageOf('count', 'Sets on-hand at one location to what was counted; variances become count movements.'),
  usageOf('receive', 'Receives the goods of a purchase order; expected is optional here.'),
  `    Each applies all lines or none in one request (docs/inventory.md "Writing stock over JSON") and
    prints the stock change as JSON. A file holds the request body as the API takes it (then the
    other flags and --line are not given).`,
].join('\n\n  ');

/** The handler of `stock <command>`. */
export function stockChange(command: Command) {
  return async (args: string[], context: CliContext): Promise<number> => {
    const { flags } = COMMANDS[command];
    const own = Object.fromEntries(flags.map(({ flag }) => [flag, { type: 'string' as const }]));
    const { values } = parseArgs({
      args,
      strict: true,
      options: { ...GLOBAL_OPTIONS, ...own, line: { type: 'string', multiple: true }, file: { type: 'string' }, 'idempotency-key': { type: 'string' } },
    });
    const given = values as Record<string, string | string[] | boolean | undefined>;
    const body = values.file === undefined ? bodyOfFlags(command, given) : await bodyOfFileFlag(command, given);
    const client = clientFor(values, context);
    // One key for the request's retries: a retried change is answered, never applied twice.
    const header = { 'Idempotency-Key': values['idempotency-key'] ?? crypto.randomUUID() };
    const change = await COMMANDS[command].send(client, body, header, context.signal);
    context.stdout.write(`${JSON.stringify(change, null, 2)}\n`);
    return 0;
  };
}

async function bodyOfFileFlag(command: Command, given: Record<string, unknown>): Promise<Bodies[Command]> {
  const others = [...COMMANDS[command].flags.map(({ flag }) => flag), 'line'].filter((flag) => given[flag] !== undefined);
  if (others.length > 0)
    throw new UsageError(`stock ${command} takes either --file or the change's flags and --line, not both (${others.map((flag) => `--${flag}`).join(', ')}).`);
  return bodyOfFile<Bodies[Command]>(String(given.file));
}

function bodyOfFlags(command: Command, given: Record<string, unknown>): Bodies[Command] {
  const { flags } = COMMANDS[command];
  const body: Record<string, unknown> = {};
  for (const { flag, field, required } of flags) {
    const value = given[flag];
    if (value === undefined && required) throw new UsageError(`stock ${command} needs --${flag} (or --file).`);
    if (value !== undefined) body[field] = value;
  }
  const lines = given.line as string[] | undefined;
  if (!lines || lines.length === 0) throw new UsageError(`stock ${command} needs at least one --line (or --file).`);
  body.lines = lines.map((line) => lineOf(line, COMMANDS[command].line));
  // The server checks the values themselves.
  return body as Bodies[Command];
}
