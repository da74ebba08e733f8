import { chainDependencies } from './composition.ts';
import { requiredEnv } from '../platform/config/env.ts';
import { idempotencyLeaseSeconds } from '../platform/config/write-path.ts';
import type { ChainDependencies } from '../platform/http/chain.ts';
import { writeDependencies } from '../platform/http/write-dependencies.ts';
import { IdempotencyStore } from '../platform/dynamo/idempotency-store.ts';
import { TABLES } from '../platform/storage/tables.ts';
import { TransactionWriter } from '../platform/dynamo/transaction-writer.ts';
import type { SecretBox } from '../webhooks/domain/endpoint.ts';

/**
 * The composition root of write routes: read routes never import this module, so their
 * functions neither need nor get the idempotency, events and audit tables.
 */
export const idempotencyStore = new IdempotencyStore(requiredEnv(TABLES.idempotency.envVar), idempotencyLeaseSeconds());

export const transactionWriter = new TransactionWriter(
  { events: requiredEnv(TABLES.events.envVar), audit: requiredEnv(TABLES.audit.envVar) },
  idempotencyStore,
);

export const writeChainDependencies: ChainDependencies = {
  ...chainDependencies,
  writes: writeDependencies(idempotencyStore, transactionWriter),
};

/**
 * The same over another idempotency store, e.g. one that keeps responses too large for one item
 * in parts (lib/app/composition-large-responses.ts).
 */
export function writeChainDependenciesOver(store: IdempotencyStore): ChainDependencies {
  const writer = new TransactionWriter({ events: requiredEnv(TABLES.events.envVar), audit: requiredEnv(TABLES.audit.envVar) }, store);
  return { ...chainDependencies, writes: writeDependencies(store, writer) };
}

/**
 * The same for the routes whose response shows a webhook signing secret (create, rotate): their
 * idempotency records keep such a response sealed with `box` (docs/webhooks.md "Secrets"). Only
 * those functions bundle and call the box.
 */
export function secretSealingWriteChainDependencies(box: SecretBox): ChainDependencies {
  const sealingStore = new IdempotencyStore(requiredEnv(TABLES.idempotency.envVar), idempotencyLeaseSeconds(), () => box);
  const writer = new TransactionWriter({ events: requiredEnv(TABLES.events.envVar), audit: requiredEnv(TABLES.audit.envVar) }, sealingStore);
  return { ...chainDependencies, writes: writeDependencies(sealingStore, writer) };
}
