import type { ROUTES } from '../../lib/app/routes.ts';
import type { RouteDefinition } from '../../lib/platform/contracts/route-types.ts';
import { rawMultipart } from './imports.ts';
import { concretePath } from './routes.ts';

/**
 * One request per write route that passes the route's validation (so it reaches the idempotency
 * middleware), for suites that send every write route without caring whether it succeeds. The
 * mapped type makes a new write route without a sample a type error; `sampleWrite` throws at run
 * time for one the table has and this list does not.
 */

type WriteRoute = Extract<(typeof ROUTES)[number], { method: 'POST' | 'PUT' | 'PATCH' | 'DELETE' }>;
export type WriteRouteId = WriteRoute['operationId'];

export interface SampleRequest {
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

/** Ids of real records to put in the sample (the path's `{id}`, the items a body names); placeholders otherwise. */
export interface SampleIds {
  id?: string;
  itemIds?: readonly string[];
  /** Goes into the codes and references a sample names (default `SAMPLE`): one per request where they must be unique. */
  tag?: string;
}

type SampleBody = { json: unknown; headers?: Record<string, string> } | { multipart: Parameters<typeof rawMultipart>[0] } | { none: true };

/** Two items a BOM may name (its target and a component must differ). */
const PLACEHOLDER_ITEMS = ['itm_01J0000000000000000000000Y', 'itm_01J0000000000000000000000Z'];
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

const tag = (ids: SampleIds) => ids.tag ?? 'SAMPLE';
const item = (ids: SampleIds, index: number) => ids.itemIds?.[index] ?? PLACEHOLDER_ITEMS[index] ?? '';
const endpointBody = (ids: SampleIds) => ({ url: 'https://hooks.example.com/sample', eventTypes: ['stock.changed'], description: tag(ids) });
const bomLines = (ids: SampleIds) => ({ name: 'Sample assembly', targetItemId: item(ids, 0), components: [{ itemId: item(ids, 1), quantity: 2 }] });

const SAMPLES: { readonly [Id in WriteRouteId]: (ids: SampleIds) => SampleBody } = {
  submitImportJob: () => ({
    multipart: [
      { name: 'kind', value: 'items' },
      { name: 'duplicateStrategy', value: 'skip' },
      { name: 'file', value: 'sku,name\nSAMPLE-1,Sample\n', fileName: 'items.csv', contentType: 'text/csv' },
    ],
  }),
  uploadAttachment: (ids) => ({
    multipart: [
      { name: 'TargetKind', value: 'item' },
      { name: 'TargetId', value: item(ids, 0) },
      { name: 'File', value: PDF, fileName: 'datasheet.pdf', contentType: 'application/pdf' },
    ],
  }),
  deleteAttachment: () => ({ none: true }),
  createAttachmentLink: (ids) => ({ json: { targetKind: 'item', targetId: item(ids, 0), url: 'https://example.com/datasheet' } }),
  createItem: (ids) => ({ json: { sku: `SKU-${tag(ids)}`, name: 'Sample item' } }),
  updateItem: () => ({ json: { name: 'Sample item, renamed' } }),
  createLocation: (ids) => ({ json: { code: `LOC-${tag(ids)}`, name: 'Sample location' } }),
  updateLocation: () => ({ json: { name: 'Sample location, renamed' } }),
  createBom: (ids) => ({ json: { code: `BOM-${tag(ids)}`, ...bomLines(ids) } }),
  updateBom: (ids) => ({ json: bomLines(ids) }),
  submitBuild: (ids) => ({ json: { buildReference: `BUILD-${tag(ids)}`, bomCode: `BOM-${tag(ids)}`, quantity: 1, locationCode: 'LOC-SAMPLE' } }),
  adjustStock: (ids) => ({
    json: { reference: `ADJ-${tag(ids)}`, lines: [{ sku: 'SAMPLE-1', locationCode: 'LOC-SAMPLE', quantityDelta: 1, expectedQuantity: null }] },
  }),
  transferStock: (ids) => ({
    json: {
      reference: `TRF-${tag(ids)}`,
      lines: [{ sku: 'SAMPLE-1', fromLocationCode: 'LOC-A', toLocationCode: 'LOC-B', quantity: 1, expectedQuantity: null }],
    },
  }),
  countStock: (ids) => ({
    json: { countReference: `CNT-${tag(ids)}`, locationCode: 'LOC-SAMPLE', lines: [{ sku: 'SAMPLE-1', countedQuantity: 1, expectedQuantity: null }] },
  }),
  receiveStock: (ids) => ({ json: { poNumber: `PO-${tag(ids)}`, lines: [{ sku: 'SAMPLE-1', locationCode: 'LOC-SAMPLE', quantity: 1 }] } }),
  createReservation: (ids) => ({ json: { reference: `RES-${tag(ids)}`, lines: [{ sku: 'SAMPLE-1', locationCode: 'LOC-SAMPLE', quantity: 1 }] } }),
  releaseReservation: () => ({ json: {} }),
  fulfilReservation: () => ({ json: {} }),
  submitExport: () => ({ json: { kind: 'items', format: 'csv' } }),
  createWebhookEndpoint: (ids) => ({ json: endpointBody(ids) }),
  replaceWebhookEndpoint: (ids) => ({ json: endpointBody(ids) }),
  deleteWebhookEndpoint: () => ({ none: true }),
  rotateWebhookSecret: () => ({ none: true }),
  replayWebhookEvents: () => ({ json: { fromUtc: '2026-01-01T00:00:00Z' } }),
};

/** The sample request of a write route, under `idempotencyKey`. */
export function sampleWrite(route: RouteDefinition, idempotencyKey: string, ids: SampleIds = {}): SampleRequest {
  const build = (SAMPLES as Readonly<Record<string, ((ids: SampleIds) => SampleBody) | undefined>>)[route.operationId];
  if (!build) throw new Error(`${route.operationId}: no sample request in test/support/write-samples.ts`);
  const path = concretePath(route, ids.id);
  const sample = build(ids);
  const headers = { 'idempotency-key': idempotencyKey };
  if ('multipart' in sample) {
    const { body, contentType } = rawMultipart(sample.multipart);
    return { path, headers: { ...headers, 'content-type': contentType }, body };
  }
  if ('json' in sample) return { path, headers: { ...headers, 'content-type': 'application/json', ...sample.headers }, body: JSON.stringify(sample.json) };
  return { path, headers };
}
