import { chainDependencies } from './composition.ts';
import { requiredEnv } from './config/env.ts';
import { idempotencyLeaseSeconds } from './config/write-path.ts';
import type { ChainDependencies } from './http/chain.ts';
import { writeDependencies } from './http/write-dependencies.ts';
import { IdempotencyStore } from './store/idempotency-store.ts';
import { TABLES } from './store/tables.ts';
import { TransactionWriter } from './store/transaction-writer.ts';

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
