import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, createTestKey } from '../support/api.ts';
import { importAndWait } from '../support/imports.ts';
import { runCli } from '../support/cli.ts';

/**
 * `npm run cli -- reservations …` against `npm start` (docs/client.md#cli, docs/inventory.md
 * "Reservations and available stock"), run as a child process the way a user runs it: create
 * from --line flags and from a file, get, list with its filters over every page, release and
 * fulfil in part and in whole, and the refusals (exit 1, the problem on stderr) and usage
 * mistakes (exit 2). The tests of this file share one organization and run in order.
 */

const csv = (...lines: string[]) => `${lines.join('\n')}\n`;

interface ReservationLine {
  lineId: string;
  sku: string;
  locationCode: string;
  lot: string | null;
  quantity: number;
  fulfilledQuantity: number;
  releasedQuantity: number;
}
interface Reservation {
  id: string;
  reference: string;
  status: string;
  expiresAt: string;
  lines: ReservationLine[];
}

let directory: string;
let env: Record<string, string | undefined>;
let key: string;

const cli = (...args: string[]) => runCli(env, args);

/** A command that must succeed, its stdout as the reservation it printed. */
async function reservationOf(...args: string[]): Promise<Reservation> {
  const { code, stdout, stderr } = await cli(...args);
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as Reservation;
}

const jsonLines = <Value>(stdout: string): Value[] =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Value);

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'reservations-cli-'));
  ({ key } = await createTestKey());
  env = { ...process.env, INVENTORY_API_URL: baseUrl(), INVENTORY_API_KEY: key };
  const succeeded = async (kind: string, file: string) =>
    expect((await importAndWait(key, { kind, duplicateStrategy: 'fail', file })).status).toBe('succeeded');
  await succeeded('items', csv('sku,name,trackingMode', 'RC-WIDGET,Widget,none', 'RC-RESIN,Resin,lot', 'RC-BOLT,Bolt,none'));
  await succeeded('locations', csv('code,name,type', 'RC-A1,Bin A1,bin'));
  await succeeded(
    'po-receipts',
    csv('poNumber,sku,locationCode,quantity,lot', 'PO-RC-1,RC-WIDGET,RC-A1,10,', 'PO-RC-1,RC-RESIN,RC-A1,3,L1', 'PO-RC-1,RC-BOLT,RC-A1,6,'),
  );
  // A later lot: receipt order is the order lots are held in.
  await succeeded('po-receipts', csv('poNumber,sku,locationCode,quantity,lot', 'PO-RC-2,RC-RESIN,RC-A1,5,L2'));
});

afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('npm run cli -- reservations', () => {
  let order1: Reservation;

  it('create holds the --line lines (a lot item without lot=: oldest lots first) and prints the reservation; get reads it back', async () => {
    // Act
    order1 = await reservationOf(
      'reservations',
      'create',
      '--reference',
      'RC-ORDER-1',
      '--line',
      'sku=RC-WIDGET,location=RC-A1,quantity=4',
      '--line',
      'sku=RC-RESIN,location=RC-A1,quantity=5',
    );
    const read = await reservationOf('reservations', 'get', '--id', order1.id);

    // Assess
    expect(order1).toMatchObject({
      id: expect.stringMatching(/^res_/),
      reference: 'RC-ORDER-1',
      status: 'active',
      lines: [
        { sku: 'RC-WIDGET', locationCode: 'RC-A1', lot: null, quantity: 4, fulfilledQuantity: 0, releasedQuantity: 0 },
        { sku: 'RC-RESIN', lot: 'L1', quantity: 3 },
        { sku: 'RC-RESIN', lot: 'L2', quantity: 2 },
      ],
    });
    expect(read).toEqual(order1);
  });

  it('create --file sends the body as written (its key replayed: the same reservation), --expires-at and lot= are passed on; a hold leaves on-hand as it was', async () => {
    // Prepare
    const expiresAt = new Date(Date.now() + 2 * 60 * 60 * 1000).toISOString();
    const file = join(directory, 'reservation.json');
    writeFileSync(file, JSON.stringify({ reference: 'RC-ORDER-2', lines: [{ sku: 'RC-BOLT', locationCode: 'RC-A1', quantity: 2 }] }));

    // Act
    const fromFile = await reservationOf('reservations', 'create', '--file', file, '--idempotency-key', 'rc-order-2');
    const replayed = await reservationOf('reservations', 'create', '--file', file, '--idempotency-key', 'rc-order-2');
    const withExpiry = await reservationOf(
      'reservations',
      'create',
      '--reference',
      'RC-ORDER-3',
      '--expires-at',
      expiresAt,
      '--line',
      'sku=RC-RESIN,location=RC-A1,lot=L2,quantity=1',
    );
    const stock = await cli('stock', 'list', '--sku', 'RC-BOLT');

    // Assess
    expect(fromFile).toMatchObject({ reference: 'RC-ORDER-2', status: 'active', lines: [{ sku: 'RC-BOLT', quantity: 2 }] });
    expect(replayed.id).toBe(fromFile.id);
    expect(withExpiry).toMatchObject({ reference: 'RC-ORDER-3', expiresAt, lines: [{ sku: 'RC-RESIN', lot: 'L2', quantity: 1 }] });
    expect(jsonLines(stock.stdout)).toEqual([expect.objectContaining({ sku: 'RC-BOLT', quantity: 6 })]);
  });

  it('a refusal prints the problem on stderr with what it names, exit 1: reference-taken, insufficient-stock, a 400, not-found', async () => {
    // Act
    const taken = await cli('reservations', 'create', '--reference', 'RC-ORDER-1', '--line', 'sku=RC-BOLT,location=RC-A1,quantity=1');
    const short = await cli(
      'reservations',
      'create',
      '--reference',
      'RC-ORDER-4',
      '--line',
      'sku=RC-BOLT,location=RC-A1,quantity=1',
      '--line',
      'sku=RC-WIDGET,location=RC-A1,quantity=7',
    );
    const invalid = await cli('reservations', 'create', '--reference', 'RC-ORDER-4', '--line', 'sku=RC-NOPE,location=RC-A1,quantity=1');
    const missing = await cli('reservations', 'get', '--id', 'res_01KH8MP4807D4A2FX90YJXQ7VB');
    const nothingHeld = await cli('reservations', 'list', '--reference', 'RC-ORDER-4');

    // Assess
    const stderrLines = (stderr: string) => stderr.trimEnd().split('\n');
    expect([taken.code, taken.stdout]).toEqual([1, '']);
    expect(stderrLines(taken.stderr)).toEqual([
      expect.stringMatching(/^409 customer-api\.reservations\.reference-taken: .*\(traceId [\w-]+\)$/),
      `  reservation ${order1.id}`,
    ]);
    // RC-WIDGET: 10 on hand, 4 held by RC-ORDER-1.
    expect([short.code, short.stdout]).toEqual([1, '']);
    const [shortFirst, ...shortLines] = stderrLines(short.stderr);
    expect(shortFirst).toMatch(/^409 customer-api\.stock\.insufficient-stock: /);
    expect(shortLines.map((line) => JSON.parse(line) as unknown)).toEqual([expect.objectContaining({ line: 1, available: 6, requested: 7 })]);
    expect([invalid.code, stderrLines(invalid.stderr)]).toEqual([
      1,
      [expect.stringMatching(/^400 customer-api\.validation\.failed: /), expect.stringMatching(/^ {2}\/lines\/0\/sku: /)],
    ]);
    expect([missing.code, missing.stderr]).toEqual([1, expect.stringMatching(/^404 customer-api\.reservations\.not-found: [^\n]*\n$/)]);
    // All or none: RC-ORDER-4's first line held nothing.
    expect([nothingHeld.code, nothingHeld.stdout]).toEqual([0, '']);
  });

  it('release --line releases part of a line; release with no --line everything left; again: 409 not-active', async () => {
    // Prepare: RC-ORDER-1 holds 4 RC-WIDGET and 3 + 2 RC-RESIN
    const [widget, resinL1, resinL2] = order1.lines as [ReservationLine, ReservationLine, ReservationLine];

    // Act
    const part = await reservationOf(
      'reservations',
      'release',
      '--id',
      order1.id,
      '--line',
      `lineId=${widget.lineId},quantity=1`,
      '--line',
      `lineId=${resinL2.lineId},quantity=2`,
    );
    const over = await cli('reservations', 'release', '--id', order1.id, '--line', `lineId=${widget.lineId},quantity=5`);
    const rest = await reservationOf('reservations', 'release', '--id', order1.id);
    const again = await cli('reservations', 'release', '--id', order1.id);

    // Assess
    expect(part).toMatchObject({
      status: 'active',
      lines: [
        { lineId: widget.lineId, releasedQuantity: 1 },
        { lineId: resinL1.lineId, releasedQuantity: 0 },
        { lineId: resinL2.lineId, releasedQuantity: 2 },
      ],
    });
    expect([over.code, over.stderr.split('\n')[0]]).toEqual([1, expect.stringMatching(/^409 customer-api\.reservations\.over-quantity: /)]);
    expect(JSON.parse(over.stderr.split('\n')[1] ?? '')).toEqual({ lineId: widget.lineId, requested: 5, left: 3 });
    expect(rest).toMatchObject({ status: 'released', lines: [{ releasedQuantity: 4 }, { releasedQuantity: 3 }, { releasedQuantity: 2 }] });
    expect([again.code, again.stderr]).toEqual([
      1,
      expect.stringMatching(new RegExp(`^409 customer-api\\.reservations\\.not-active: .*\\n {2}status released\\n$`)),
    ]);
  });

  it('fulfil --line ships part of a line, fulfil with no --line the rest; on-hand goes down by what was shipped', async () => {
    // Prepare: RC-BOLT holds 6, 2 of them reserved by RC-ORDER-2
    const reservation = await reservationOf('reservations', 'create', '--reference', 'RC-ORDER-5', '--line', 'sku=RC-BOLT,location=RC-A1,quantity=3');
    const line = reservation.lines[0] as ReservationLine;

    // Act
    const part = await reservationOf('reservations', 'fulfil', '--id', reservation.id, '--line', `lineId=${line.lineId},quantity=1`);
    const rest = await reservationOf('reservations', 'fulfil', '--id', reservation.id);
    const stock = await cli('stock', 'list', '--sku', 'RC-BOLT');

    // Assess
    expect(part).toMatchObject({ status: 'active', lines: [{ fulfilledQuantity: 1, releasedQuantity: 0 }] });
    expect(rest).toMatchObject({ status: 'fulfilled', lines: [{ quantity: 3, fulfilledQuantity: 3, releasedQuantity: 0 }] });
    expect(jsonLines(stock.stdout)).toEqual([expect.objectContaining({ sku: 'RC-BOLT', quantity: 3 })]);
  });

  it('list prints JSON lines oldest first, every page (--limit 1), filtered by --reference, --status and --item-id', async () => {
    // Prepare
    const resin = JSON.parse((await cli('items', 'get', '--sku', 'RC-RESIN')).stdout) as { id: string };

    // Act
    const all = await cli('reservations', 'list', '--limit', '1');
    const byReference = await cli('reservations', 'list', '--reference', 'RC-ORDER-2');
    const active = await cli('reservations', 'list', '--status', 'active');
    const byItem = await cli('reservations', 'list', '--item-id', resin.id, '--limit', '1');

    // Assess
    expect(all.code, all.stderr).toBe(0);
    const references = (stdout: string) => jsonLines<Reservation>(stdout).map((reservation) => reservation.reference);
    expect(references(all.stdout)).toEqual(['RC-ORDER-1', 'RC-ORDER-2', 'RC-ORDER-3', 'RC-ORDER-5']);
    expect(jsonLines<Reservation>(byReference.stdout)).toEqual([
      expect.objectContaining({ reference: 'RC-ORDER-2', status: 'active', lines: [expect.objectContaining({ sku: 'RC-BOLT' })] }),
    ]);
    expect(references(active.stdout)).toEqual(['RC-ORDER-2', 'RC-ORDER-3']);
    expect(references(byItem.stdout)).toEqual(['RC-ORDER-1', 'RC-ORDER-3']);
  });

  it.each([
    ['create without --reference', ['create', '--line', 'sku=RC-BOLT,location=RC-A1,quantity=1'], '--reference'],
    ['create without --line', ['create', '--reference', 'RC-X'], '--line'],
    ['a --line without quantity', ['create', '--reference', 'RC-X', '--line', 'sku=RC-BOLT,location=RC-A1'], 'quantity required'],
    ['a --line with an unknown part', ['create', '--reference', 'RC-X', '--line', 'sku=RC-BOLT,location=RC-A1,quantity=1,bin=2'], 'unknown bin'],
    [
      'a quantity that is not a number',
      ['create', '--reference', 'RC-X', '--line', 'sku=RC-BOLT,location=RC-A1,quantity=two'],
      "quantity must be a number, not 'two'",
    ],
    ['--file with --reference', ['create', '--file', 'x.json', '--reference', 'RC-X'], 'not both (--reference)'],
    ['get without --id', ['get'], '--id'],
    ['release with a --line without lineId', ['release', '--id', 'res_01KH8MP4807D4A2FX90YJXQ7VB', '--line', 'quantity=1'], 'lineId required'],
    ['list with an unknown --status', ['list', '--status', 'open'], "--status is active, released, fulfilled, expired, not 'open'"],
    ['list with --limit 0', ['list', '--limit', '0'], '--limit must be a positive whole number'],
  ])('%s is a usage mistake: exit 2, the message and the usage on stderr', async (_what, args, message) => {
    const { code, stdout, stderr } = await cli('reservations', ...args);
    expect([code, stdout]).toEqual([2, '']);
    expect(stderr.split('\n')[0]).toContain(message);
    expect(stderr).toContain('reservations create --reference REF');
  });
});
