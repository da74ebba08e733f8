import type { Principal } from '../auth/api-key.ts';
import { hashIdempotencyKey } from '../write/idempotency.ts';
import type { CommandWriter } from '../write/ports.ts';
import { header } from './headers.ts';
import type { HttpEvent } from './types.ts';

/**
 * How a write request commits the slices before the last of an operation of several
 * transactions (docs/inventory.md "Reservations and available stock"): the route's writer, the
 * request's actor and trace, and the hash of its Idempotency-Key, which the operation stores so
 * that a retry with the same key finishes it rather than starting another.
 */
export function requestSliceRun<Write>(writer: CommandWriter<Write>, input: { principal: Principal; traceId: string; event: HttpEvent }) {
  const key = header(input.event, 'idempotency-key');
  if (key === undefined) throw new Error('A write route runs under an Idempotency-Key (the middleware requires one)');
  return {
    writer,
    context: { organizationId: input.principal.organizationId, actor: { type: 'api-key' as const, id: input.principal.keyId }, traceId: input.traceId },
    requestKey: hashIdempotencyKey(key),
  };
}
