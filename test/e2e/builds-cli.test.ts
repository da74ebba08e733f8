import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, createTestKey } from '../support/api.ts';
import { importAndWait } from '../support/imports.ts';
import { runCli } from '../support/cli.ts';

/**
 * `npm run cli -- builds …` against `npm start` (docs/client.md#cli, docs/boms.md "Builds"), run
 * as a child process the way a user runs it: submit from flags with --source and --wait to a
 * build that succeeded, submit a file with --wait to one that failed short (exit 1, its lines on
 * stderr), get, and the refusals (exit 1, the problem on stderr). The tests of this file share
 * one organization and run in order.
 */

const csv = (...lines: string[]) => `${lines.join('\n')}\n`;

interface Build {
  id: string;
  buildReference: string;
  quantity: number;
  outputLot: string | null;
  status: string;
  phase: string;
  failure: { code: string; message: string; lines: Array<{ line: number; sku: string; needed: number; available: number }> } | null;
  completedAt: string | null;
}
interface StockRecord {
  sku: string;
  locationCode: string;
  lot: string | null;
  quantity: number;
}

let directory: string;
let env: Record<string, string | undefined>;

const cli = (...args: string[]) => runCli(env, args);

const jsonLines = <Value>(stdout: string): Value[] =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Value);

const stockOf = async (sku: string) =>
  jsonLines<StockRecord>((await cli('stock', 'list', '--sku', sku)).stdout).map((record) => [record.locationCode, record.lot, record.quantity]);

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'builds-cli-'));
  const { key } = await createTestKey();
  env = { ...process.env, INVENTORY_API_URL: baseUrl(), INVENTORY_API_KEY: key };
  const succeeded = async (kind: string, file: string) =>
    expect((await importAndWait(key, { kind, duplicateStrategy: 'fail', file })).status).toBe('succeeded');
  await succeeded('items', csv('sku,name,trackingMode', 'BC-KIT,Kit,lot', 'BC-BOLT,Bolt,none', 'BC-RESIN,Resin,lot'));
  await succeeded('locations', csv('code,name,type', 'BC-A1,Bin A1,bin', 'BC-B1,Bin B1,bin'));
  await succeeded(
    'po-receipts',
    csv(
      'poNumber,sku,locationCode,quantity,lot',
      'PO-BC-1,BC-BOLT,BC-A1,10,',
      'PO-BC-1,BC-BOLT,BC-B1,3,',
      'PO-BC-1,BC-RESIN,BC-A1,4,R1',
      'PO-BC-1,BC-RESIN,BC-A1,4,R2',
    ),
  );
  // A kit takes 2 bolts and 1 resin.
  await succeeded('boms', csv('bomCode,targetSku,componentSku,quantity', 'BC-KIT-BOM,BC-KIT,BC-BOLT,2', 'BC-KIT-BOM,BC-KIT,BC-RESIN,1'));
});

afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('npm run cli -- builds', () => {
  let built: Build;

  it('submit --wait builds from the flags, drawing the --source places first, prints its steps on stderr and the build that succeeded; get reads it back', async () => {
    // Act: 3 kits: 6 bolts, the 3 of B1 first; 3 resin, named from lot R2
    const submitted = await cli(
      'builds',
      'submit',
      '--build-reference',
      'BC-1',
      '--bom-code',
      'BC-KIT-BOM',
      '--quantity',
      '3',
      '--location-code',
      'BC-A1',
      '--output-lot',
      'KIT-1',
      '--source',
      'sku=BC-BOLT,locationCode=BC-B1',
      '--source',
      'sku=BC-BOLT',
      '--source',
      'sku=BC-RESIN,lot=R2',
      '--wait',
    );
    const read = await cli('builds', 'get', JSON.parse(submitted.stdout || '{}').id ?? 'none');

    // Assess
    expect(submitted.code, submitted.stderr).toBe(0);
    built = JSON.parse(submitted.stdout) as Build;
    expect(built).toMatchObject({
      id: expect.stringMatching(/^bld_/),
      buildReference: 'BC-1',
      quantity: 3,
      outputLot: 'KIT-1',
      status: 'succeeded',
      phase: 'done',
      failure: null,
    });
    const steps = submitted.stderr.trimEnd().split('\n');
    expect(steps.at(-1)).toBe(`${built.id} succeeded done`);
    expect(steps.every((line) => line.startsWith(`${built.id} `))).toBe(true);
    expect([read.code, JSON.parse(read.stdout)]).toEqual([0, built]);
    expect(await stockOf('BC-BOLT')).toEqual(
      expect.arrayContaining([
        ['BC-A1', null, 7],
        ['BC-B1', null, 0],
      ]),
    );
    expect(await stockOf('BC-RESIN')).toEqual(
      expect.arrayContaining([
        ['BC-A1', 'R1', 4],
        ['BC-A1', 'R2', 1],
      ]),
    );
    expect(await stockOf('BC-KIT')).toEqual([['BC-A1', 'KIT-1', 3]]);
  });

  it('submit --file --wait of a build short of stock prints the failed build, its failure and short lines on stderr, exit 1; nothing was consumed', async () => {
    // Prepare: 5 kits need 10 bolts (7 left) and 5 resin (5 left)
    const file = join(directory, 'build.json');
    writeFileSync(file, JSON.stringify({ buildReference: 'BC-2', bomCode: 'BC-KIT-BOM', quantity: 5, locationCode: 'BC-A1', outputLot: 'KIT-2' }));

    // Act
    const short = await cli('builds', 'submit', '--file', file, '--wait');

    // Assess
    expect(short.code, short.stderr).toBe(1);
    expect(JSON.parse(short.stdout)).toMatchObject({ buildReference: 'BC-2', status: 'failed', phase: 'done', failure: { code: 'insufficient-stock' } });
    const [failed, ...lines] = short.stderr
      .trimEnd()
      .split('\n')
      .filter((line) => !line.startsWith('bld_'));
    expect(failed).toMatch(/^The build failed: insufficient-stock: /);
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([expect.objectContaining({ line: 0, sku: 'BC-BOLT', needed: 10, available: 7 })]);
    expect(await stockOf('BC-BOLT')).toEqual(expect.arrayContaining([['BC-A1', null, 7]]));
  });

  it('submit without --wait prints the queued build; a reference built before is refused with the build that took it, an unknown id is not found: exit 1', async () => {
    // Act
    const queued = await cli(
      'builds',
      'submit',
      '--build-reference',
      'BC-3',
      '--bom-code',
      'BC-KIT-BOM',
      '--quantity',
      '1',
      '--location-code',
      'BC-A1',
      '--output-lot',
      'KIT-3',
    );
    const taken = await cli(
      'builds',
      'submit',
      '--build-reference',
      'BC-1',
      '--bom-code',
      'BC-KIT-BOM',
      '--quantity',
      '1',
      '--location-code',
      'BC-A1',
      '--output-lot',
      'KIT-4',
    );
    const invalid = await cli('builds', 'submit', '--build-reference', 'BC-5', '--bom-code', 'BC-NOPE', '--quantity', '1', '--location-code', 'BC-A1');
    const missing = await cli('builds', 'get', 'bld_01KH8MP4807D4A2FX90YJXQ7VB');

    // Assess
    expect(queued.code, queued.stderr).toBe(0);
    expect(JSON.parse(queued.stdout)).toMatchObject({ buildReference: 'BC-3', status: 'queued', phase: 'reserve' });
    expect([taken.code, taken.stdout]).toEqual([1, '']);
    expect(taken.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^409 customer-api\.builds\.reference-taken: .*\(traceId [\w-]+\)$/),
      `  build ${built.id}`,
    ]);
    expect([invalid.code, invalid.stderr.trimEnd().split('\n')]).toEqual([
      1,
      [expect.stringMatching(/^400 customer-api\.validation\.failed: /), expect.stringMatching(/^ {2}\/bomCode: /)],
    ]);
    expect([missing.code, missing.stderr]).toEqual([1, expect.stringMatching(/^404 customer-api\.builds\.not-found: [^\n]*\n$/)]);
  });
});
