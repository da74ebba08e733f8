import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, createTestKey } from '../support/api.ts';
import { csv } from '../unit/client/support/e2e-inventory.ts';
import { runCli } from '../support/cli.ts';

/**
 * `npm run cli` against `npm start` (docs/client.md#cli), run as a child process the way a user
 * runs it: output is a pipe, so progress comes as plain lines.
 */

let directory: string;
let env: Record<string, string | undefined>;

const cli = (...args: string[]) => runCli(env, args);

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'client-cli-'));
  const { key } = await createTestKey();
  env = { ...process.env, INVENTORY_API_URL: baseUrl(), INVENTORY_API_KEY: key };
});

afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('npm run cli', () => {
  it('imports submit --wait prints plain progress lines, the finished job and its row errors', async () => {
    // Prepare
    const file = join(directory, 'items.csv');
    writeFileSync(file, csv(['sku,name', 'CLI-1,One', 'CLI-2,Two', ',Nameless']));
    // Act
    const { code, stdout, stderr } = await cli('imports', 'submit', file, '--kind', 'items', '--wait');
    // Assess
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({ status: 'completed_with_errors', fileName: 'items.csv', counts: { totalRows: 3, created: 2, failed: 1 } });
    expect(stderr).toMatch(/^imp_\w+ completed_with_errors 3\/3 rows \(100%\)$/m);
    expect(stderr).toContain('row 3, sku: required');
    expect(stderr).not.toContain('\r');
  });

  it('events tail --once prints the feed as JSON lines and resumes from its checkpoint file', async () => {
    // Prepare
    const checkpoint = join(directory, 'feed.checkpoint.json');
    // Act
    const first = await cli('events', 'tail', '--once', '--limit', '1', '--checkpoint', checkpoint);
    const second = await cli('events', 'tail', '--once', '--checkpoint', checkpoint);
    // Assess
    expect(first.code).toBe(0);
    const events = first.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; data: { item: { sku: string } } });
    expect(events.map((event) => [event.type, event.data.item.sku])).toEqual([
      ['item.created', 'CLI-1'],
      ['item.created', 'CLI-2'],
    ]);
    expect(JSON.parse(readFileSync(checkpoint, 'utf8'))).toMatchObject({ cursor: expect.any(String) });
    expect([second.code, second.stdout, second.stderr]).toEqual([0, '', '0 events\n']);
  });

  it('items get --sku prints the item; items availability its quantity states; stock list --location prints its stock records', async () => {
    // Prepare: CLI-1 (imported by the first test) received into bin CLI-A1
    const locations = join(directory, 'locations.csv');
    const receipt = join(directory, 'receipt.csv');
    writeFileSync(locations, csv(['code,name', 'CLI-A1,Bin']));
    writeFileSync(receipt, csv(['poNumber,sku,locationCode,quantity', 'PO-CLI,CLI-1,CLI-A1,7']));
    expect((await cli('imports', 'submit', locations, '--kind', 'locations', '--wait')).code).toBe(0);
    expect((await cli('imports', 'submit', receipt, '--kind', 'po-receipts', '--wait')).code).toBe(0);

    // Act
    const item = await cli('items', 'get', '--sku', 'CLI-1');
    const stock = await cli('stock', 'list', '--location', 'CLI-A1');
    const unknown = await cli('stock', 'list', '--location', 'NOWHERE');
    const availability = await cli('items', 'availability', '--sku', 'CLI-1');
    const noSuchItem = await cli('items', 'availability', '--sku', 'NO-SUCH-SKU');

    // Assess
    expect(item.code).toBe(0);
    expect(JSON.parse(item.stdout)).toMatchObject({ sku: 'CLI-1', name: 'One' });
    expect(stock.code).toBe(0);
    expect(
      stock.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual([expect.objectContaining({ sku: 'CLI-1', locationCode: 'CLI-A1', quantity: 7 })]);
    expect([unknown.code, unknown.stderr.split('\n')[0]]).toEqual([1, "No location with code 'NOWHERE'."]);
    expect(availability.code, availability.stderr).toBe(0);
    expect(JSON.parse(availability.stdout)).toMatchObject({
      onHand: 7,
      reserved: 0,
      available: 7,
      truncated: false,
      locations: [expect.objectContaining({ locationCode: 'CLI-A1', onHand: 7, available: 7 })],
    });
    expect([noSuchItem.code, noSuchItem.stderr.split('\n')[0]]).toEqual([1, "No item with sku 'NO-SUCH-SKU'."]);
  });

  it('items create|update and locations create|update write the catalog from flags or a JSON file; a stale --if-match is exit 1', async () => {
    // Prepare
    const patch = join(directory, 'item-patch.json');
    writeFileSync(patch, JSON.stringify({ description: 'From a file', reorderPoint: 4 }));

    // Act
    const location = await cli('locations', 'create', '--code', 'CLI-CAT-L', '--name', 'Catalog bin', '--type', 'bin');
    const child = await cli('locations', 'create', '--code', 'CLI-CAT-C', '--name', 'Child', '--parent-code', 'CLI-CAT-L');
    const moved = await cli('locations', 'update', '--code', 'CLI-CAT-C', '--clear', 'parent-code', '--type', 'zone');
    const item = await cli('items', 'create', '--sku', 'CLI-CAT-1', '--name', 'Catalog item', '--unit', 'kg', '--reorder-point', '2.5');
    const renamed = await cli('items', 'update', '--sku', 'CLI-CAT-1', '--if-match', '1', '--new-sku', 'CLI-CAT-2', '--clear', 'unit', '--file', patch);
    const stale = await cli('items', 'update', '--sku', 'CLI-CAT-2', '--if-match', '1', '--name', 'Stale');
    const usage = await cli('items', 'create', '--name', 'No sku');

    // Assess
    expect(location.code, location.stderr).toBe(0);
    expect(JSON.parse(location.stdout)).toMatchObject({ code: 'CLI-CAT-L', version: 1, status: 'active' });
    expect(JSON.parse(child.stdout)).toMatchObject({ parentCode: 'CLI-CAT-L' });
    expect(JSON.parse(moved.stdout)).toMatchObject({ parentCode: null, type: 'zone', version: 2 });
    expect(JSON.parse(item.stdout)).toMatchObject({ sku: 'CLI-CAT-1', unit: 'kg', reorderPoint: 2.5, version: 1 });
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(JSON.parse(renamed.stdout)).toMatchObject({ sku: 'CLI-CAT-2', unit: 'ea', description: 'From a file', reorderPoint: 4, version: 2 });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('customer-api.precondition-failed');
    expect(usage.code).toBe(2);
  });

  it('stock adjust applies lines given as flags or as a JSON file, and prints a stale line on 409', async () => {
    // Prepare: CLI-1 holds 7 at CLI-A1 (the test above)
    const file = join(directory, 'adjustment.json');
    writeFileSync(file, JSON.stringify({ reference: 'CLI-ADJ-2', lines: [{ sku: 'CLI-1', locationCode: 'CLI-A1', quantityDelta: 1, expectedQuantity: 5 }] }));

    // Act
    const flags = await cli('stock', 'adjust', '--reference', 'CLI-ADJ-1', '--reason', 'recount', '--line', 'sku=CLI-1,location=CLI-A1,delta=-2,expected=7');
    const fromFile = await cli('stock', 'adjust', '--file', file);
    const stale = await cli('stock', 'adjust', '--reference', 'CLI-ADJ-3', '--line', 'sku=CLI-1,location=CLI-A1,delta=-1,expected=7');
    const usage = await cli('stock', 'adjust', '--reference', 'CLI-ADJ-4', '--line', 'sku=CLI-1,location=CLI-A1,delta=-1');

    // Assess
    expect(flags.code, flags.stderr).toBe(0);
    expect(JSON.parse(flags.stdout)).toMatchObject({
      kind: 'adjustment',
      reference: 'CLI-ADJ-1',
      reason: 'recount',
      lines: [{ previousQuantity: 7, quantity: 5 }],
    });
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(JSON.parse(fromFile.stdout)).toMatchObject({ lines: [{ previousQuantity: 5, quantity: 6 }] });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('customer-api.stock.quantity-stale');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('expected');
  });

  it('stock transfer, count and receive apply their lines given as flags; a missing part is a usage error', async () => {
    // Prepare: CLI-1 holds 6 at CLI-A1 (the test above); a second location
    const locations = join(directory, 'cli-locations.csv');
    writeFileSync(locations, 'code,name,type\nCLI-B1,Bin B1,bin\n');
    expect((await cli('imports', 'submit', locations, '--kind', 'locations', '--wait')).code).toBe(0);

    // Act
    const transfer = await cli('stock', 'transfer', '--reference', 'CLI-TR-1', '--line', 'sku=CLI-1,from=CLI-A1,to=CLI-B1,quantity=2,expected=6');
    const count = await cli('stock', 'count', '--count-reference', 'CLI-CNT-1', '--location', 'CLI-B1', '--line', 'sku=CLI-1,counted=5,expected=2');
    const receive = await cli(
      'stock',
      'receive',
      '--po-number',
      'CLI-PO-9',
      '--received-at',
      '2026-01-02T03:04:05Z',
      '--line',
      'sku=CLI-1,location=CLI-A1,quantity=1',
    );
    const usage = await cli('stock', 'count', '--count-reference', 'CLI-CNT-2', '--line', 'sku=CLI-1,counted=1,expected=null');

    // Assess
    expect(transfer.code, transfer.stderr).toBe(0);
    expect(JSON.parse(transfer.stdout)).toMatchObject({
      kind: 'transfer',
      lines: [
        { locationCode: 'CLI-A1', quantity: 4 },
        { locationCode: 'CLI-B1', quantity: 2 },
      ],
    });
    expect(count.code, count.stderr).toBe(0);
    expect(JSON.parse(count.stdout)).toMatchObject({ kind: 'count', reference: 'CLI-CNT-1', lines: [{ previousQuantity: 2, quantity: 5, delta: 3 }] });
    expect(receive.code, receive.stderr).toBe(0);
    expect(JSON.parse(receive.stdout)).toMatchObject({ kind: 'receipt', reference: 'CLI-PO-9', lines: [{ previousQuantity: 4, quantity: 5 }] });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--location');
  });

  it('barcodes render --type qrcode writes a PNG, and an SVG for .svg', async () => {
    // Act
    const png = await cli('barcodes', 'render', '--type', 'qrcode', '--data', 'CLI-1', '--out', join(directory, 'label.png'));
    const svg = await cli('barcodes', 'render', '--type', 'code128', '--data', 'CLI-1', '--out', join(directory, 'label.svg'));
    // Assess
    expect(png.code).toBe(0);
    expect(png.stdout).toMatch(/^Wrote .*label\.png \(\d+ bytes, qr\)\n$/);
    expect(readFileSync(join(directory, 'label.png')).subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(svg.code).toBe(0);
    expect(readFileSync(join(directory, 'label.svg'), 'utf8')).toMatch(/<svg\b/);
  });

  it('exports create --kind stock-records --out writes the file through exportFile() and prints the export', async () => {
    // Prepare: the stock the earlier tests received (the tests of this file share one organization)
    const out = join(directory, 'stock.csv');
    // Act
    const { code, stdout, stderr } = await cli('exports', 'create', '--kind', 'stock-records', '--out', out, '--filter', 'nonZero=true');
    // Assess
    expect(code, stderr).toBe(0);
    const job = JSON.parse(stdout) as { id: string; status: string; rowCount: number; fileSizeBytes: number; filters: Record<string, unknown> };
    expect(job).toMatchObject({ status: 'succeeded', filters: { nonZero: true } });
    const content = readFileSync(out, 'utf8');
    expect(Buffer.byteLength(content)).toBe(job.fileSizeBytes);
    expect(content.startsWith('stockRecordId,itemId,sku,locationId,locationCode,lot,quantity,updatedAt,reserved,available\r\n')).toBe(true);
    expect(content.trimEnd().split('\r\n')).toHaveLength(job.rowCount + 1);
    expect(stderr).toMatch(new RegExp(`^${job.id} succeeded`, 'm'));
  });

  it('imports submit --dry-run --wait prints the dry run, which creates nothing', async () => {
    // Prepare
    const file = join(directory, 'dry-run.csv');
    writeFileSync(file, csv(['sku,name', 'CLI-DRY-1,One']));
    // Act
    const { code, stdout } = await cli('imports', 'submit', file, '--kind', 'items', '--dry-run', '--wait');
    const lookup = await cli('items', 'get', '--sku', 'CLI-DRY-1');
    // Assess
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ dryRun: true, status: 'succeeded', counts: { totalRows: 1, created: 1 } });
    expect(lookup.code).toBe(1);
  });

  it('answers a usage mistake with status 2 and an API refusal with status 1', async () => {
    const usage = await cli('barcodes', 'render', '--type', 'qr', '--out', join(directory, 'x.svg'));
    const refused = await cli('barcodes', 'render', '--type', 'ean13', '--data', '4006381333932', '--out', join(directory, 'x.svg'));
    expect([usage.code, usage.stderr.split('\n')[0]]).toEqual([2, '--data is required: the text to encode.']);
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringMatching(/^400 customer-api\.validation\.failed: .*\(traceId [\w-]+\)\n$/)]);
  });
});
