import type { CommandWriter, IdempotencyRecords } from '../write/ports.ts';
import type { RouteDefinition } from '../contracts/route-types.ts';
import { idempotency } from './middleware/idempotency.ts';
import type { HttpMiddleware } from './types.ts';

/**
 * What a write route's chain needs beyond a read's: the Idempotency-Key middleware over its
 * records, and the one-transaction command writer. Built here rather than in lib/platform/http/chain.ts,
 * so that read functions, which never import this module, do not bundle the middleware.
 */
export interface WriteDependencies {
  idempotency: (route: RouteDefinition) => HttpMiddleware;
  writer: CommandWriter;
}

export function writeDependencies(records: IdempotencyRecords, writer: CommandWriter): WriteDependencies {
  return { idempotency: (route) => idempotency(route, records), writer };
}
