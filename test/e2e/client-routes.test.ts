import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ApiProblemError,
  consumeFeed,
  createInventoryClient,
  createItem,
  createLocation,
  updateItem,
  updateLocation,
  feedPages,
  formBody,
  importFile,
  MemoryCheckpointStore,
  paginate,
  renderBarcode,
  submitBuild,
  submitExport,
  traceLot,
  unwrap,
  waitForBuild,
  waitForExport,
  exportDownloadUrl,
  unwrapResponse,
  type DomainEvent,
  type FeedPage,
  type ImportProgress,
  type InventoryClient,
} from '../../client/index.ts';
import { baseUrl, createTestKey } from '../support/api.ts';
import { allEvents, csv, importCsv, itemId, seedInventory, type SeededInventory } from '../unit/client/support/e2e-inventory.ts';
import { ALL_ROUTE_LABELS, recordingRoutes } from '../unit/client/support/route-recorder.ts';

/**
 * The typed client against `npm start` (docs/client.md): every area through the client only, and
 * at the end a check that the client reached every route of lib/app/routes.ts with a success. The
 * suites share one organization, seeded once through the client; their tests run in file order.
 */

const routes = recordingRoutes();
let client: InventoryClient;
let seeded: SeededInventory;

beforeAll(async () => {
  const { key } = await createTestKey();
  client = createInventoryClient({ baseUrl: baseUrl(), apiKey: key, fetch: routes.fetch });
  seeded = await seedInventory(client);
}, 120_000);

const ofType = <T extends DomainEvent['type']>(events: DomainEvent[], type: T) =>
  events.filter((event): event is Extract<DomainEvent, { type: T }> => event.type === type);

describe('imports through the client', () => {
  it('lists the import kinds', async () => {
    const kinds = await unwrap(client.api.GET('/v1/imports/kinds'));
    expect(kinds.data.map((kind) => kind.kind)).toEqual(expect.arrayContaining(['items', 'locations', 'boms', 'stock-adjustments', 'po-receipts']));
  });

  it('submits an items file, reports progress until it has finished, and pages its row errors', async () => {
    // Prepare: two good rows, three bad ones
    const file = new File([csv(['sku,name,reorderPoint', 'BOLT,Bolt,5', ',No sku,1', 'NUT,Nut,abc', 'WASHER,Washer,2', 'PIN,,3'])], 'items.csv');
    const progress: ImportProgress[] = [];
    // Act
    const { job, rowErrors } = await importFile(client, {
      kind: 'items',
      file,
      duplicateStrategy: 'fail',
      initialDelayMs: 50,
      onProgress: (report) => progress.push(report),
    });
    const errors = [];
    for await (const error of rowErrors) errors.push(error);
    // Assess
    expect(job.status).toBe('completed_with_errors');
    expect(job.counts).toMatchObject({ totalRows: 5, processedRows: 5, created: 2, failed: 3 });
    expect(progress.at(-1)).toMatchObject({ processedRows: 5, totalRows: 5 });
    expect(progress.every((report, index) => index === 0 || report.processedRows >= (progress[index - 1]?.processedRows ?? 0))).toBe(true);
    expect(errors.map((error) => [error.rowNumber, error.column, error.code])).toEqual([
      [2, 'sku', 'required'],
      [3, 'reorderPoint', 'invalid-number'],
      [5, 'name', 'required'],
    ]);
  });

  it('reads the job back and replays a resubmission with the same Idempotency-Key', async () => {
    const submit = () =>
      unwrapResponse(
        client.api.POST('/v1/imports/jobs', {
          body: { kind: 'items', duplicateStrategy: 'skip', file: new File([csv(['sku,name', 'WIDGET,Widget'])], 'again.csv') },
          bodySerializer: formBody,
          params: { header: { 'Idempotency-Key': 'client-e2e-resubmit' } },
        }),
      );
    const first = await submit();
    const replay = await submit();
    const read = await unwrap(client.api.GET('/v1/imports/jobs/{id}', { params: { path: { id: first.data.id } } }));
    expect(replay.data.id).toBe(first.data.id);
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(read.id).toBe(first.data.id);
  });
});

describe('the events feed through the client', () => {
  it('consumes the feed page by page from the oldest event, checkpointing each page', async () => {
    // Prepare
    const checkpoints = new MemoryCheckpointStore();
    const pages: FeedPage[] = [];
    // Act
    await consumeFeed(client, { limit: 2, follow: false, checkpoints, handle: (page) => void pages.push(page) });
    // Assess
    const events = pages.flatMap((page) => page.events);
    expect(pages.length).toBeGreaterThan(2);
    expect(pages.every((page) => page.events.length <= 2)).toBe(true);
    expect(pages.slice(1).map((page) => page.cursor)).toEqual(pages.slice(0, -1).map((page) => page.nextCursor));
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
    expect(ofType(events, 'item.created').map((event) => event.data.item.sku)).toEqual(expect.arrayContaining(['WIDGET', 'GADGET', 'SPRING']));
    expect(await checkpoints.load()).toBe(pages.at(-1)?.nextCursor);
  });

  it('follows the tail: a consumer waiting there receives an event written later, then stops on abort', async () => {
    // Prepare: a consumer positioned at the tail
    const checkpoints = new MemoryCheckpointStore();
    await consumeFeed(client, { follow: false, checkpoints, handle: () => undefined });
    const controller = new AbortController();
    const received: DomainEvent[] = [];
    // Act: it polls every 200 ms while an import changes an item
    const consuming = consumeFeed(client, {
      checkpoints,
      idleDelayMs: 200,
      signal: controller.signal,
      handle: (page) => {
        received.push(...page.events);
        if (received.some((event) => event.type === 'item.updated')) controller.abort();
      },
    });
    await importCsv(client, 'items', ['sku,name', 'SPRING,Coil spring'], 'update');
    await consuming;
    // Assess
    expect(received.map((event) => event.type)).toEqual(['item.updated']);
    expect(ofType(received, 'item.updated')[0]?.data.changedFields).toEqual(['name']);
  });
});

describe('stock through the client', () => {
  it('submits a stock-adjustments import and sees its movements and stock changes on the feed', async () => {
    // Prepare
    const before = await allEvents(client);
    // Act
    await importCsv(client, 'stock-adjustments', ['reference,sku,locationCode,quantityDelta,reason', 'ADJ-1,WIDGET,A1,-95,damaged']);
    const events = (await allEvents(client)).slice(before.length);
    // Assess: the adjustment, and low-stock as WIDGET crosses below its reorder point of 10
    expect(events.map((event) => event.type)).toEqual(['movement.created', 'stock.changed', 'low-stock']);
    expect(ofType(events, 'stock.changed')[0]?.data).toMatchObject({ sku: 'WIDGET', previousQuantity: 100, quantity: 5, delta: -95, reason: 'damaged' });
    expect(ofType(before, 'po.received')[0]?.data.lines.map((line) => [line.sku, line.quantity])).toEqual([
      ['WIDGET', 100],
      ['SPRING', 40],
    ]);
  });

  it('filters the feed by type', async () => {
    const pages: FeedPage[] = [];
    for await (const page of feedPages(client, { type: 'stock.changed', follow: false })) pages.push(page);
    const events = pages.flatMap((page) => page.events);
    expect(events.length).toBeGreaterThanOrEqual(3);
    expect(events.every((event) => event.type === 'stock.changed')).toBe(true);
  });
});

describe('inventory reads through the client', () => {
  it('finds an item by sku and reads records, stock and movements by filter and by id', async () => {
    // Act
    const items = await unwrap(client.api.GET('/v1/items', { params: { query: { sku: 'WIDGET' } } }));
    const item = await unwrap(client.api.GET('/v1/items/{id}', { params: { path: { id: itemId(seeded, 'WIDGET') } } }));
    const locations = await unwrap(client.api.GET('/v1/locations', { params: { query: { code: 'A1' } } }));
    const location = await unwrap(client.api.GET('/v1/locations/{id}', { params: { path: { id: locations.data[0]?.id ?? '' } } }));
    const stock = await unwrap(client.api.GET('/v1/stock-records', { params: { query: { itemId: item.id, nonZero: true } } }));
    const record = await unwrap(client.api.GET('/v1/stock-records/{id}', { params: { path: { id: seeded.widgetStockRecordId } } }));
    const availability = await unwrap(client.api.GET('/v1/items/{id}/availability', { params: { path: { id: item.id } } }));
    const movements = await unwrap(client.api.GET('/v1/movements', { params: { query: { itemId: item.id, limit: 1 } } }));
    const movement = await unwrap(client.api.GET('/v1/movements/{id}', { params: { path: { id: movements.data[0]?.id ?? '' } } }));

    // Assess
    expect(items.data.map((found) => found.id)).toEqual([itemId(seeded, 'WIDGET')]);
    expect(item.sku).toBe('WIDGET');
    expect(location).toMatchObject({ code: 'A1', type: 'bin' });
    expect(stock.data).toEqual([record]);
    expect(record).toMatchObject({ sku: 'WIDGET', locationCode: 'A1', quantity: 5, onHand: 5, reserved: 0, available: 5 });
    expect(item).toMatchObject({ onHand: 5, reserved: 0, available: 5 });
    expect(availability).toMatchObject({
      itemId: item.id,
      onHand: 5,
      truncated: false,
      locations: [{ locationCode: 'A1', onHand: 5, lots: [{ lot: null, stockRecordId: record.id }] }],
    });
    expect(movement).toMatchObject({ type: 'adjustment', sku: 'WIDGET', quantity: 95, reference: 'ADJ-1' });
  });
});

describe('BOMs through the client', () => {
  const components = () => [{ itemId: itemId(seeded, 'SPRING'), quantity: 2 }];

  it('creates, reads, updates, lists and compares a BOM, and lists its builds', async () => {
    // Act: create (replayed once with the same key), read, update with If-Match
    const key = randomUUID();
    const create = () =>
      unwrapResponse(
        client.api.POST('/v1/boms', {
          body: { code: 'GADGET-BOM', name: 'Gadget', targetItemId: itemId(seeded, 'GADGET'), status: 'active', components: components() },
          params: { header: { 'Idempotency-Key': key } },
        }),
      );
    const created = await create();
    const replayed = await create();
    const read = await unwrapResponse(client.api.GET('/v1/boms/{id}', { params: { path: { id: created.data.id } } }));
    const updated = await unwrap(
      client.api.PUT('/v1/boms/{id}', {
        params: { path: { id: created.data.id }, header: { 'If-Match': read.response.headers.get('etag') ?? '' } },
        body: {
          name: 'Gadget assembly',
          targetItemId: itemId(seeded, 'GADGET'),
          status: 'active',
          components: [{ itemId: itemId(seeded, 'SPRING'), quantity: 3 }],
        },
      }),
    );
    const listed = [];
    for await (const bom of paginate((cursor) => unwrap(client.api.GET('/v1/boms', { params: { query: { q: 'gadget', limit: 1, cursor } } }))))
      listed.push(bom);
    const revisions = await unwrap(client.api.GET('/v1/boms/{id}/revisions', { params: { path: { id: created.data.id } } }));
    const [first, second] = revisions.data;
    const revision = await unwrap(
      client.api.GET('/v1/boms/{id}/revisions/{revisionId}', { params: { path: { id: created.data.id, revisionId: first?.id ?? '' } } }),
    );
    const comparison = await unwrap(
      client.api.GET('/v1/boms/{id}/revisions/compare', {
        params: { path: { id: created.data.id }, query: { fromRevisionId: first?.id ?? '', toRevisionId: second?.id ?? '' } },
      }),
    );
    // Act: build 3 gadgets from the seeded springs, then ask which builds consumed them
    await importCsv(client, 'builds', ['buildReference,bomCode,quantity,locationCode', 'B-1,GADGET-BOM,3,A1']);
    const springStock = ofType(await allEvents(client), 'stock.changed').find((event) => event.data.sku === 'SPRING')?.data.stockRecordId ?? '';
    const builds = await unwrap(
      client.api.GET('/v1/boms/{id}/builds', { params: { path: { id: created.data.id }, query: { sourceStockRecordId: springStock } } }),
    );
    // Assess
    expect(created.response.status).toBe(201);
    expect(replayed.data.id).toBe(created.data.id);
    expect(replayed.response.headers.get('idempotent-replayed')).toBe('true');
    expect(read.data).toMatchObject({ code: 'GADGET-BOM', revision: { number: 1 } });
    expect(updated).toMatchObject({ name: 'Gadget assembly', revision: { number: 2 } });
    expect(listed.map((bom) => bom.id)).toEqual([created.data.id]);
    expect(revisions.data.map((summary) => summary.number)).toEqual([1, 2]);
    expect(revision).toMatchObject({ bomId: created.data.id, number: 1 });
    expect(comparison.fields).toEqual([{ field: 'name', from: 'Gadget', to: 'Gadget assembly' }]);
    expect(comparison.components.changed).toEqual([expect.objectContaining({ itemId: itemId(seeded, 'SPRING'), quantityDelta: 1 })]);
    expect(builds.data).toEqual([
      expect.objectContaining({ reference: 'B-1', quantity: 3, consumed: [expect.objectContaining({ sourceStockRecordId: springStock, quantity: 9 })] }),
    ]);
  });

  it('throws a typed problem for a code already taken and for a stale If-Match', async () => {
    // Act
    const taken = await unwrap(
      client.api.POST('/v1/boms', { body: { code: 'GADGET-BOM', name: 'Again', targetItemId: itemId(seeded, 'GADGET'), components: components() } }),
    ).catch((error: unknown) => error);
    const [bom] = (await unwrap(client.api.GET('/v1/boms', { params: { query: { q: 'GADGET-BOM' } } }))).data;
    const stale = await unwrap(
      client.api.PUT('/v1/boms/{id}', {
        params: { path: { id: bom?.id ?? '' }, header: { 'If-Match': '"1.1"' } },
        body: { name: 'Stale', targetItemId: itemId(seeded, 'GADGET'), components: components() },
      }),
    ).catch((error: unknown) => error);
    // Assess
    expect(taken).toBeInstanceOf(ApiProblemError);
    expect(taken).toMatchObject({ status: 409, code: 'customer-api.boms.code-taken', traceId: expect.any(String) });
    expect(stale).toMatchObject({ status: 409, code: 'customer-api.boms.revision-conflict' });
  });
});

describe('builds through the client', () => {
  it('submits a build of the BOM above, follows it to succeeded, reads it back; a build short of springs fails with its short line', async () => {
    // Prepare: GADGET-BOM takes 3 SPRING a gadget; A1 holds 31 (40 received, 9 built above)
    const phases: string[] = [];
    // Act
    const queued = await submitBuild(client, { buildReference: 'CLIENT-BLD-1', bomCode: 'GADGET-BOM', quantity: 2, locationCode: 'A1' });
    const done = await waitForBuild(client, queued.id, { initialDelayMs: 50, onProgress: (build) => phases.push(build.phase) });
    const read = await unwrap(client.api.GET('/v1/builds/{id}', { params: { path: { id: queued.id } } }));
    const short = await waitForBuild(
      client,
      (await submitBuild(client, { buildReference: 'CLIENT-BLD-2', bomCode: 'GADGET-BOM', quantity: 100, locationCode: 'A1' })).id,
      { initialDelayMs: 50 },
    );
    // Assess
    expect(queued).toMatchObject({ id: expect.stringMatching(/^bld_/), status: 'queued', phase: 'reserve', revision: { number: 2 } });
    expect(done).toMatchObject({ status: 'succeeded', phase: 'done', failure: null, completedAt: expect.any(String) });
    expect(phases.at(-1)).toBe('done');
    expect(read).toEqual(done);
    expect(short).toMatchObject({ status: 'failed', failure: { code: 'insufficient-stock', lines: [{ line: 0, sku: 'SPRING', needed: 300, available: 25 }] } });
  });
});

describe('attachments through the client', () => {
  it('uploads, lists, links, gets a download URL, downloads, and deletes', async () => {
    // Prepare
    const target = { targetKind: 'item' as const, targetId: itemId(seeded, 'WIDGET') };
    const content = 'Widget datasheet\nTorque: 12 Nm\n';
    // Act
    const uploaded = await unwrap(
      client.api.POST('/v1/attachments/upload', {
        body: { TargetKind: target.targetKind, TargetId: target.targetId, FileKind: 'datasheet', PageCount: '1', File: new File([content], 'widget.txt') },
        bodySerializer: formBody,
      }),
    );
    const linked = await unwrap(
      client.api.POST('/v1/attachments/links', { body: { ...target, url: 'https://vendor.example/widget.pdf', title: 'Vendor spec' } }),
    );
    const listed = await unwrap(client.api.GET('/v1/attachments', { params: { query: target } }));
    const download = await unwrap(client.api.GET('/v1/attachments/{id}/download-url', { params: { path: { id: uploaded.id } } }));
    const downloaded = await (await fetch(download.url)).text();
    const notDownloadable = await unwrap(client.api.GET('/v1/attachments/{id}/download-url', { params: { path: { id: linked.id } } })).catch(
      (error: unknown) => error,
    );
    const deleted = await unwrapResponse(client.api.DELETE('/v1/attachments/{id}', { params: { path: { id: uploaded.id } } }));
    const afterDelete = await unwrap(client.api.GET('/v1/attachments/{id}/download-url', { params: { path: { id: uploaded.id } } })).catch(
      (error: unknown) => error,
    );
    // Assess
    expect(uploaded).toMatchObject({
      kind: 'file',
      fileKind: 'datasheet',
      fileName: 'widget.txt',
      contentType: 'text/plain',
      sizeBytes: Buffer.byteLength(content),
      pageCount: 1,
    });
    expect(linked).toMatchObject({ kind: 'link', title: 'Vendor spec' });
    expect(listed.data.map((attachment) => attachment.id)).toEqual([uploaded.id, linked.id]);
    expect(download).toMatchObject({ fileName: 'widget.txt', sizeBytes: Buffer.byteLength(content) });
    expect(downloaded).toBe(content);
    expect(notDownloadable).toMatchObject({ status: 409, code: 'customer-api.attachments.not-downloadable' });
    expect(deleted.response.status).toBe(204);
    expect(afterDelete).toMatchObject({ status: 404, code: 'customer-api.attachments.not-found' });
  });
});

describe('audit through the client', () => {
  it('pages the audit log, newest first, with one entry per import submitted', async () => {
    const entries = [];
    for await (const entry of paginate((cursor) => unwrap(client.api.GET('/v1/audit/events', { params: { query: { limit: 3, cursor } } }))))
      entries.push(entry);
    const submitted = entries.filter((entry) => entry.kind === 'import.submitted').map((entry) => entry.target.id);
    expect(submitted).toEqual(expect.arrayContaining(seeded.jobs.map((job) => job.id)));
    expect(entries.some((entry) => entry.kind === 'bom.created')).toBe(true);
    expect(entries.map((entry) => entry.occurredAt)).toEqual([...entries.map((entry) => entry.occurredAt)].sort().reverse());
  });
});

describe('barcodes through the client', () => {
  it('renders an SVG image', async () => {
    const svg = await renderBarcode(client, { payload: 'WIDGET', format: 'code128', widthMm: 40 });
    expect(svg).toMatch(/<svg\b[^>]*\swidth="40(\.0+)?mm"/);
  });

  it('throws the validation problem with its field errors', async () => {
    const error = await renderBarcode(client, { payload: '4006381333932', format: 'ean13' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiProblemError);
    expect(error).toMatchObject({
      status: 400,
      code: 'customer-api.validation.failed',
      errors: [expect.objectContaining({ name: 'payload', code: 'invalid-check-digit' })],
    });
  });
});

describe('webhooks through the client', () => {
  it('registers, lists, reads, replaces, rotates, reads the log, replays and deletes an endpoint', async () => {
    const created = await unwrap(
      client.api.POST('/v1/webhooks/endpoints', { body: { url: 'https://hooks.example.com/client', eventTypes: ['item.created'] } }),
    );
    expect(created.secret).toMatch(/^whsec_/);
    const list = await unwrap(client.api.GET('/v1/webhooks/endpoints'));
    expect(list.data.map((endpoint) => endpoint.id)).toContain(created.id);
    const read = await unwrap(client.api.GET('/v1/webhooks/endpoints/{id}', { params: { path: { id: created.id } } }));
    expect(read).toMatchObject({ id: created.id, status: 'enabled' });
    const replaced = await unwrap(
      client.api.PUT('/v1/webhooks/endpoints/{id}', {
        params: { path: { id: created.id } },
        body: { url: 'https://hooks.example.com/client', enabled: false },
      }),
    );
    expect(replaced).toMatchObject({ status: 'disabled', disabledReason: 'manual' });
    const rotated = await unwrap(client.api.POST('/v1/webhooks/endpoints/{id}/secret-rotations', { params: { path: { id: created.id } } }));
    expect(rotated.secret).not.toBe(created.secret);
    const log = await unwrap(client.api.GET('/v1/webhooks/endpoints/{id}/deliveries', { params: { path: { id: created.id }, query: { status: 'failed' } } }));
    expect(log.data).toEqual([]);
    const replay = await unwrap(
      client.api.POST('/v1/webhooks/endpoints/{id}/replays', { params: { path: { id: created.id } }, body: { fromUtc: '2026-01-01T00:00:00Z' } }),
    );
    expect(replay.endpointId).toBe(created.id);
    await unwrapResponse(client.api.DELETE('/v1/webhooks/endpoints/{id}', { params: { path: { id: created.id } } }));
    await expect(unwrap(client.api.GET('/v1/webhooks/endpoints/{id}', { params: { path: { id: created.id } } }))).rejects.toBeInstanceOf(ApiProblemError);
  });
});

describe('exports through the client', () => {
  it('lists the kinds, submits a stock-records export, waits with progress and mints its download link', async () => {
    const kinds = await unwrap(client.api.GET('/v1/exports/kinds'));
    expect(kinds.data.map((kind) => kind.kind)).toContain('stock-records');
    const queued = await submitExport(client, { kind: 'stock-records', format: 'jsonl', filters: { nonZero: true } });
    const seen: string[] = [];
    const job = await waitForExport(client, queued.id, { initialDelayMs: 50, onProgress: (progress) => seen.push(progress.status) });
    expect(job.status).toBe('succeeded');
    expect(seen.at(-1)).toBe('succeeded');
    const link = await exportDownloadUrl(client, job.id);
    const lines = (await (await fetch(link.url)).text()).trim().split('\n');
    expect(lines).toHaveLength(job.rowCount);
  });
});

describe('lot traces through the client', () => {
  it('traces a lot received but never built with: an empty tree', async () => {
    await importCsv(client, 'items', ['sku,name,trackingMode', 'TRACED,Traced,lot']);
    await importCsv(client, 'po-receipts', ['poNumber,sku,locationCode,quantity,lot', 'PO-LOT,TRACED,A1,1,L-1']);

    expect(await traceLot(client, { sku: 'TRACED', lot: 'L-1', direction: 'forward' })).toMatchObject({
      sku: 'TRACED',
      lot: 'L-1',
      nodes: [],
      truncated: false,
    });
  });
});

describe('stock writes through the client', () => {
  it('adjusts stock with compare-and-set and reads the change back', async () => {
    // Act
    const change = await unwrap(
      client.api.POST('/v1/stock/adjustments', {
        params: { header: { 'Idempotency-Key': randomUUID() } },
        body: { reference: 'CLIENT-ADJ-1', lines: [{ sku: 'WIDGET', locationCode: 'A1', quantityDelta: 2, expectedQuantity: null }] },
      }),
    );
    const read = await unwrap(client.api.GET('/v1/stock/changes/{id}', { params: { path: { id: change.id } } }));

    // Assess
    expect(read).toEqual(change);
    expect(change.lines[0]).toMatchObject({ sku: 'WIDGET', locationCode: 'A1', delta: 2 });
  });
});

describe('transfers, counts, receipts and reservations through the client', () => {
  it('receives, transfers and counts stock, then reserves, releases and fulfils it', async () => {
    // Prepare
    await importCsv(client, 'locations', ['code,name,type', 'CL-B1,Client bin,bin']);
    const key = () => ({ header: { 'Idempotency-Key': randomUUID() } });

    // Act
    const receipt = await unwrap(
      client.api.POST('/v1/stock/receipts', {
        params: key(),
        body: { poNumber: 'CLIENT-PO-1', lines: [{ sku: 'WIDGET', locationCode: 'CL-B1', quantity: 10 }] },
      }),
    );
    const transfer = await unwrap(
      client.api.POST('/v1/stock/transfers', {
        params: key(),
        body: { reference: 'CLIENT-TR-1', lines: [{ sku: 'WIDGET', fromLocationCode: 'CL-B1', toLocationCode: 'A1', quantity: 2, expectedQuantity: 10 }] },
      }),
    );
    const count = await unwrap(
      client.api.POST('/v1/stock/counts', {
        params: key(),
        body: { countReference: 'CLIENT-CNT-1', locationCode: 'CL-B1', lines: [{ sku: 'WIDGET', countedQuantity: 9, expectedQuantity: 8 }] },
      }),
    );
    const reserved = await unwrap(
      client.api.POST('/v1/reservations', {
        params: key(),
        body: { reference: 'CLIENT-RES-1', lines: [{ sku: 'WIDGET', locationCode: 'CL-B1', quantity: 4 }] },
      }),
    );
    const line = reserved.lines[0];
    if (!line) throw new Error('The reservation holds one line');
    const released = await unwrap(
      client.api.POST('/v1/reservations/{id}/release', {
        params: { ...key(), path: { id: reserved.id } },
        body: { lines: [{ lineId: line.lineId, quantity: 1 }] },
      }),
    );
    const fulfilled = await unwrap(client.api.POST('/v1/reservations/{id}/fulfil', { params: { ...key(), path: { id: reserved.id } } }));
    const read = await unwrap(client.api.GET('/v1/reservations/{id}', { params: { path: { id: reserved.id } } }));
    const listed = await unwrap(client.api.GET('/v1/reservations', { params: { query: { reference: 'CLIENT-RES-1' } } }));

    // Assess
    expect(receipt.lines[0]).toMatchObject({ quantity: 10 });
    // A1 held 7 (the adjustments above).
    expect(transfer.lines.map((leg) => [leg.locationCode, leg.quantity])).toEqual([
      ['CL-B1', 8],
      ['A1', 9],
    ]);
    expect(count.lines[0]).toMatchObject({ previousQuantity: 8, quantity: 9 });
    expect(released).toMatchObject({ status: 'active', lines: [{ releasedQuantity: 1 }] });
    expect(fulfilled).toMatchObject({ status: 'fulfilled', lines: [{ fulfilledQuantity: 3 }] });
    expect(read).toEqual(fulfilled);
    expect(listed.data.map((reservation) => reservation.id)).toEqual([reserved.id]);
  });
});

describe('catalog writes through the client', () => {
  it('creates and patches an item and a location; a stale ifMatch is a typed precondition-failed', async () => {
    // Act
    const item = await createItem(client, { sku: 'CLIENT-CAT', name: 'Catalog item', unit: 'kg' });
    const patched = await updateItem(client, item.id, { unit: null, category: 'Tools' }, { ifMatch: item.version });
    const stale = await updateItem(client, item.id, { name: 'Stale' }, { ifMatch: item.version }).catch((error: unknown) => error);
    const location = await createLocation(client, { code: 'CLIENT-CAT-L', name: 'Catalog bin', parentCode: 'A1' });
    const moved = await updateLocation(client, location.id, { parentCode: null, type: 'zone' }, { ifMatch: '"1"' });

    // Assess
    expect(patched).toMatchObject({ unit: 'ea', category: 'Tools', version: 2 });
    expect(stale).toBeInstanceOf(ApiProblemError);
    expect((stale as ApiProblemError).code).toBe('customer-api.precondition-failed');
    expect(location).toMatchObject({ parentCode: 'A1', version: 1 });
    expect(moved).toMatchObject({ parentCode: null, type: 'zone', version: 2 });
  });
});

describe('route coverage', () => {
  it('reached every route of lib/app/routes.ts through the client with a success', () => {
    expect([...routes.reached].sort()).toEqual([...ALL_ROUTE_LABELS].sort());
  });
});
