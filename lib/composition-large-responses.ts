import { writeChainDependenciesOver } from './composition-writes.ts';
import { requiredEnv } from './config/env.ts';
import { idempotencyLeaseSeconds } from './config/write-path.ts';
import type { ChainDependencies } from './http/chain.ts';
import { PartedResponseIdempotencyStore } from './store/idempotency-response-parts.ts';
import { TABLES } from './store/tables.ts';

/**
 * The composition root of the write routes whose response may outgrow one DynamoDB item (BOM
 * create and update: the whole BOM, up to 500 lines): their idempotency records keep such a
 * response in parts (lib/store/idempotency-response-parts.ts). Only those functions bundle it.
 */
export const largeResponseWriteChainDependencies: ChainDependencies = writeChainDependenciesOver(
  new PartedResponseIdempotencyStore(requiredEnv(TABLES.idempotency.envVar), idempotencyLeaseSeconds()),
);
