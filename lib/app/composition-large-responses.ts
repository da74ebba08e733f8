import { writeChainDependenciesOver } from './composition-writes.ts';
import { requiredEnv } from '../platform/config/env.ts';
import { idempotencyLeaseSeconds } from '../platform/config/write-path.ts';
import type { ChainDependencies } from '../platform/http/chain.ts';
import { PartedResponseIdempotencyStore } from '../platform/dynamo/idempotency-response-parts.ts';
import { TABLES } from '../platform/storage/tables.ts';

/**
 * The composition root of the write routes whose response may outgrow one DynamoDB item (BOM
 * create and update: the whole BOM, up to 500 lines): their idempotency records keep such a
 * response in parts (lib/platform/dynamo/idempotency-response-parts.ts). Only those functions bundle it.
 */
export const largeResponseWriteChainDependencies: ChainDependencies = writeChainDependenciesOver(
  new PartedResponseIdempotencyStore(requiredEnv(TABLES.idempotency.envVar), idempotencyLeaseSeconds()),
);
