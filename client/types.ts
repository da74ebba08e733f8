import type { components, paths } from './generated/api-types.ts';

/**
 * The generated API types as the client exposes them. Every write declares `Idempotency-Key` as
 * a required header; the client fills it in itself (docs/client.md#idempotency), so here it is
 * optional: pass one only to tie a call to a key of your own.
 */

type Schemas = components['schemas'];

type WithOptionalKey<Header> = Omit<Header, 'Idempotency-Key'> & { 'Idempotency-Key'?: string };

/** An operation whose header parameters need nothing more once the key is optional gets `header?`. */
type OptionalIdempotencyKey<Operation> = Operation extends { parameters: { header: infer Header } }
  ? Omit<Operation, 'parameters'> & {
      parameters: Omit<Operation['parameters'], 'header'> &
        (object extends Omit<Header, 'Idempotency-Key'> ? { header?: WithOptionalKey<Header> } : { header: WithOptionalKey<Header> });
    }
  : Operation;

export type ClientPaths = {
  [Path in keyof paths]: { [Method in keyof paths[Path]]: OptionalIdempotencyKey<paths[Path][Method]> };
};

/**
 * The media types the client reads. JSON routes also offer `text/json` and `text/plain` (the same
 * JSON); the client asks for none of them, so their types are left out of `data`.
 */
export type ClientMedia = 'application/json' | 'application/problem+json' | 'image/svg+xml';

export type ProblemDetails = Schemas['ProblemDetails'];
export type ImportJob = Schemas['ImportJob'];
export type ImportJobStatus = ImportJob['status'];
export type DuplicateStrategy = ImportJob['duplicateStrategy'];
export type ImportRowError = Schemas['ImportRowError'];
export type ExportJob = Schemas['ExportJob'];
export type ExportDownloadUrl = Schemas['ExportDownloadUrl'];
export type DomainEvent = Schemas['DomainEvent'];
export type EventType = DomainEvent['type'];
export type LotTrace = Schemas['LotTrace'];
export type LotTraceNode = Schemas['LotTraceNode'];
export type LotTraceDirection = LotTrace['direction'];
export type BarcodeFormat = NonNullable<paths['/v1/barcodes']['get']['parameters']['query']['format']>;
export type BomDetail = Schemas['BomDetail'];
export type Attachment = Schemas['Attachment'];
export type AuditEvent = Schemas['AuditEvent'];
/** A build job of a BOM (docs/boms.md "Builds"): queued, running, then succeeded or failed. */
export type Build = paths['/v1/builds/{id}']['get']['responses'][200]['content']['application/json'];
export type BuildStatus = Build['status'];
export type BuildPhase = Build['phase'];
export type BuildSubmission = paths['/v1/builds']['post']['requestBody']['content']['application/json'];

/** What the client needs of `fetch`: openapi-fetch always calls it with a Request. */
export type FetchLike = (request: Request) => Promise<Response>;

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Catalog writes (docs/inventory.md "Writing the catalog"). */
export type Item = paths['/v1/items/{id}']['get']['responses'][200]['content']['application/json'];
export type Location = paths['/v1/locations/{id}']['get']['responses'][200]['content']['application/json'];
export type ItemCreate = paths['/v1/items']['post']['requestBody']['content']['application/json'];
export type ItemPatch = paths['/v1/items/{id}']['patch']['requestBody']['content']['application/json'];
export type LocationCreate = paths['/v1/locations']['post']['requestBody']['content']['application/json'];
export type LocationPatch = paths['/v1/locations/{id}']['patch']['requestBody']['content']['application/json'];
