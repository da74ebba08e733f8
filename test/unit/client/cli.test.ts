import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { barcodeFormatOf } from '../../../client/cli/commands/barcodes-render.ts';
import type { CliContext } from '../../../client/cli/context.ts';
import { runCli } from '../../../client/cli/main.ts';
import { barLine, plainLine, progressReporter } from '../../../client/cli/progress.ts';
import { createInventoryClient, type InventoryClientOptions } from '../../../client/index.ts';
import { fakeFeed } from './support/fake-feed.ts';
import { recordingSleep } from './support/fake-fetch.ts';
import type { FetchLike } from '../../../client/types.ts';

/** The CLI in process: configuration, usage mistakes, output and progress (docs/client.md#cli). */

function context(fetch: FetchLike, env: Record<string, string> = { INVENTORY_API_URL: 'http://env.test', INVENTORY_API_KEY: 'env-key' }) {
  const out: string[] = [];
  const err: string[] = [];
  const clients: InventoryClientOptions[] = [];
  const cli: CliContext = {
    env,
    stdout: { write: (text) => out.push(String(text)) },
    stderr: { write: (text) => err.push(text) },
    interactive: false,
    signal: new AbortController().signal,
    createClient: (options) => {
      clients.push(options);
      return createInventoryClient({ ...options, fetch, sleep: recordingSleep().sleep });
    },
  };
  return { cli, out, err, clients };
}

describe('runCli', () => {
  it('prints the events as JSON lines and counts them on stderr', async () => {
    const feed = fakeFeed(3);
    const { cli, out, err } = context(feed.fetch);
    const code = await runCli(['events', 'tail', '--once', '--limit', '2'], cli);
    expect(code).toBe(0);
    expect(
      out
        .join('')
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: string }).id),
    ).toEqual(feed.events.map((event) => event.id));
    expect(err).toEqual(['3 events\n']);
  });

  it('takes --url and --key over the environment', async () => {
    const { cli, clients } = context(fakeFeed(0).fetch);
    await runCli(['events', 'tail', '--once', '--url', 'http://flag.test', '--key', 'flag-key', '--max-attempts', '2'], cli);
    expect(clients[0]).toMatchObject({ baseUrl: 'http://flag.test', apiKey: 'flag-key', retry: { maxAttempts: 2 } });
  });

  it('explains a missing URL or key with status 2', async () => {
    const { cli, err } = context(fakeFeed(0).fetch, {});
    expect(await runCli(['events', 'tail', '--once'], cli)).toBe(2);
    expect(err[0]).toMatch(/^No API URL: pass --url or set INVENTORY_API_URL/);
  });

  it.each([
    [['nothing', 'here'], "Unknown command 'nothing here'."],
    [['events', 'tail', '--bogus'], "Unknown option '--bogus'"],
    [['events', 'tail', '--limit', '0'], '--limit must be a positive whole number'],
    [['imports', 'submit', '--kind', 'items'], 'Give exactly one FILE to import.'],
    [['imports', 'submit', 'a.csv'], '--kind is required'],
    [['imports', 'submit', 'a.csv', '--kind', 'items', '--duplicate-strategy', 'merge'], '--duplicate-strategy must be one of skip, update, fail.'],
    [['barcodes', 'render', '--type', 'bogus', '--data', 'x', '--out', 'x.svg'], "Unknown barcode type 'bogus'"],
  ])('refuses %j with status 2', async (argv, message) => {
    const { cli, err } = context(fakeFeed(0).fetch);
    expect(await runCli(argv, cli)).toBe(2);
    expect(err.join('')).toContain(message);
    expect(err.join('')).toContain('Usage: npm run cli');
  });

  it('prints the usage for --help', async () => {
    const { cli, out } = context(fakeFeed(0).fetch);
    expect(await runCli(['--help'], cli)).toBe(0);
    expect(out.join('')).toContain('barcodes render --type FORMAT --data TEXT --out FILE');
  });

  it('explains an expired checkpoint with the way back, status 1', async () => {
    // Prepare: a checkpoint file whose cursor the feed refuses
    const directory = mkdtempSync(join(tmpdir(), 'client-cli-'));
    const checkpoint = join(directory, 'feed.json');
    writeFileSync(checkpoint, JSON.stringify({ cursor: 'c1' }));
    const feed = fakeFeed(2);
    feed.expired.add('c1');
    const { cli, err } = context(feed.fetch);
    // Act
    const code = await runCli(['events', 'tail', '--once', '--checkpoint', checkpoint], cli).finally(() => rmSync(directory, { recursive: true }));
    // Assess
    expect(code).toBe(1);
    expect(err.join('')).toMatch(
      /^400 customer-api\.events\.cursor-expired: .*\nThe checkpoint is past the 30-day retention.*delete .*feed\.json and run again/s,
    );
  });
});

describe('barcodeFormatOf', () => {
  it.each([
    ['qrcode', 'qr'],
    ['QR', 'qr'],
    ['ean13', 'ean13'],
    ['data-matrix', 'datamatrix'],
  ])('reads %s as %s', (name, format) => {
    expect(barcodeFormatOf(name)).toBe(format);
  });
});

describe('progressReporter', () => {
  it('prints one plain line per change when not on a terminal', () => {
    const written: string[] = [];
    const progress = progressReporter({ write: (text) => written.push(text) }, false);
    progress.update(0, 0, 'imp_1 queued');
    progress.update(0, 0, 'imp_1 queued');
    progress.update(50, 200, 'imp_1 processing');
    progress.update(200, 200, 'imp_1 succeeded');
    progress.finish();
    expect(written).toEqual(['imp_1 queued\n', 'imp_1 processing 50/200 rows (25%)\n', 'imp_1 succeeded 200/200 rows (100%)\n']);
  });

  it('redraws one bar in place on a terminal and ends its line when finished', () => {
    const written: string[] = [];
    const progress = progressReporter({ write: (text) => written.push(text) }, true);
    progress.update(50, 200, 'imp_1 processing');
    progress.update(200, 200, 'imp_1 succeeded');
    progress.finish();
    expect(written).toEqual([`\r\x1b[2K${barLine(50, 200, 'imp_1 processing')}`, `\r\x1b[2K${barLine(200, 200, 'imp_1 succeeded')}`, '\n']);
    expect(barLine(50, 200, 'x')).toBe(`[${'█'.repeat(8)}${'░'.repeat(22)}] 25% 50/200 rows x`);
    expect(plainLine(0, 0, 'queued')).toBe('queued');
  });
});
