import type { AuditActor, AuditDraft, AuditEvent } from '../audit/types.ts';
import type { EventDraft, EventEnvelope } from '../events/types.ts';
import type { StoredResponse } from './idempotency.ts';

/**
 * A write command's plan: the storage actions for its own records (opaque here; built by store
 * repositories), what it says for the audit log, and the domain events it causes. The writer
 * commits all of it, plus the idempotency completion, in one transaction.
 */
export interface CommandPlan<R, Write = unknown> {
  writes: Write[];
  audit?: AuditDraft;
  events: EventDraft[];
  result: R;
}

/** The idempotency claim a write runs under (opaque token owned by the store). */
export interface IdempotencyClaim {
  organizationId: string;
  keyHash: string;
  token: string;
}

export interface WriteContext {
  organizationId: string;
  actor: AuditActor;
  traceId: string | null;
  idempotency?: { key: string; claim: IdempotencyClaim };
}

export interface CommitResult<R> {
  result: R;
  response?: StoredResponse;
  events: EventEnvelope[];
  audit?: AuditEvent;
  attempts: number;
}

export interface CommandWriter<Write = unknown> {
  run<R>(context: WriteContext, build: () => Promise<CommandPlan<R, Write>>, respond?: (result: R) => StoredResponse): Promise<CommitResult<R>>;
}

/** What the idempotency middleware needs from storage. */
export interface IdempotencyRecords {
  claim(
    organizationId: string,
    keyHash: string,
    fingerprint: string,
    now: Date,
  ): Promise<{ kind: 'claimed'; claim: IdempotencyClaim } | { kind: 'replay'; response: StoredResponse } | { kind: 'rejected'; error: Error }>;
  complete(claim: IdempotencyClaim, response: StoredResponse, now: Date): Promise<void>;
  release(claim: IdempotencyClaim): Promise<void>;
}
