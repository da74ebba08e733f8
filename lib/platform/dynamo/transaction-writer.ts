import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { auditPut } from './audit-items.ts';
import { eventBatchItems, readLastSequence } from './event-batches.ts';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { AuditDraft, AuditEvent } from '../audit/types.ts';
import { ApiError } from '../core/errors.ts';
import { newEventId } from '../events/event-id.ts';
import { eventEnvelope } from '../events/batches.ts';
import type { EventDraft, EventEnvelope } from '../events/types.ts';
import { inProgressError, type StoredResponse } from '../write/idempotency.ts';
import { newId } from '../core/ids.ts';
import { documentClient } from '../aws/dynamodb-client.ts';
import type { IdempotencyStore } from './idempotency-store.ts';
import type { CommandPlan, CommandWriter, CommitResult, WriteContext } from '../write/ports.ts';
import { envelopeAssignments } from './entity.ts';
import { eventSequenceEntity } from './entities.ts';
import { MAX_TRANSACTION_ITEMS, type TransactItem } from './transaction-items.ts';
import { backOff } from '../core/backoff.ts';

/**
 * The write path (docs/architecture.md "The write path"): a command's own items, its audit event, its domain events
 * numbered from the organization's sequence (stored together, as one event batch unless too large:
 * lib/platform/dynamo/event-batches.ts), and the completion of the idempotency record, all
 * in ONE TransactWriteItems. The sequence counter's condition makes concurrent writers of one
 * organization serialize: the loser re-runs the command with fresh numbers, so the feed is
 * gapless and in commit order, and an aborted transaction leaves no event behind.
 */

export interface StoreWrite {
  item: TransactItem;
  /**
   * The domain error when this item's condition fails (e.g. a code already taken); it may read
   * storage to explain the failure fully.
   */
  onConditionFailed?: () => Error | Promise<Error>;
}

export class WriteConflictError extends Error {
  override name = 'WriteConflictError';
}

const MAX_ATTEMPTS = 25;

/**
 * The last sequence number this container committed or saw per organization: the next command
 * numbers its events from it without reading the counter first (one request fewer per write).
 * It is only a hint, since the counter's condition checks it. When it is stale (another container
 * wrote in between), the cancelled transaction returns the counter's value and the command is
 * re-run at once with it.
 */
const sequenceHints = new Map<string, number>();
const MAX_SEQUENCE_HINTS = 10_000;

/** Only ever raises the hint: concurrent commands of one container may report out of order. */
function rememberSequence(organizationId: string, last: number): void {
  const known = sequenceHints.get(organizationId);
  if (known !== undefined && known >= last) return;
  sequenceHints.delete(organizationId);
  sequenceHints.set(organizationId, last);
  if (sequenceHints.size > MAX_SEQUENCE_HINTS) {
    const oldest = sequenceHints.keys().next().value;
    if (oldest !== undefined) sequenceHints.delete(oldest);
  }
}

/** The counter's `last` in a cancellation reason's item (marshalled, as the low-level client returns it). */
function counterValueOf(item: Record<string, unknown> | undefined): number | undefined {
  const last = item?.last as { N?: string } | number | undefined;
  const value = typeof last === 'number' ? last : Number(last?.N);
  return Number.isInteger(value) ? value : undefined;
}
const RETRYABLE_CANCELLATIONS = new Set(['TransactionConflict', 'ProvisionedThroughputExceeded', 'ThrottlingError']);

interface Tables {
  events: string;
  audit: string;
}

export class TransactionWriter implements CommandWriter<StoreWrite> {
  constructor(
    private readonly tables: Tables,
    private readonly idempotency?: IdempotencyStore,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Runs `build` and commits its plan, re-running it on sequence conflicts. `respond` turns the
   * result into the response stored with the idempotency record.
   */
  async run<R>(context: WriteContext, build: () => Promise<CommandPlan<R, StoreWrite>>, respond?: (result: R) => StoredResponse): Promise<CommitResult<R>> {
    // The counter's value a stale first attempt learnt from its cancellation, for the retry.
    let reported: number | undefined;
    for (let attempt = 1; ; attempt += 1) {
      const plan = await build();
      const now = this.clock();
      // Only a first attempt trusts the hint; after contention the counter is read afresh.
      const hinted = plan.events.length > 0 && attempt === 1 ? sequenceHints.get(context.organizationId) : undefined;
      const known = hinted ?? reported;
      reported = undefined;
      const lastSequence = plan.events.length === 0 ? 0 : (known ?? (await readLastSequence(this.tables.events, context.organizationId)));
      const events = this.envelopes(context.organizationId, plan.events, lastSequence, now);
      const audit = plan.audit ? this.auditEvent(context, plan.audit, now) : undefined;
      const response = respond?.(plan.result);

      const items: TransactItem[] = plan.writes.map((write) => write.item);
      const counterIndex = events.length > 0 ? items.length : -1;
      if (events.length > 0) {
        items.push(this.sequenceUpdate(context.organizationId, lastSequence, lastSequence + events.length));
        for (const item of eventBatchItems(events, lastSequence + 1, now)) items.push(this.eventPut(item));
      }
      if (audit) items.push(auditPut(this.tables.audit, context.organizationId, audit));
      const idempotencyIndex = items.length;
      if (context.idempotency && response && this.idempotency) {
        items.push(...(await this.idempotency.completionItems(context.idempotency.claim, response, now)));
      }
      if (items.length > MAX_TRANSACTION_ITEMS) throw new Error(`A command may write at most ${MAX_TRANSACTION_ITEMS} items, this one has ${items.length}`);

      const failure = await this.transact(items, counterIndex);
      if (!failure) {
        if (events.length > 0) rememberSequence(context.organizationId, lastSequence + events.length);
        return { result: plan.result, response, events, audit, attempts: attempt };
      }
      if (failure.index === counterIndex && hinted !== undefined) {
        // A stale hint is not contention: re-run at once with the counter's value. Later
        // failures are contention and back off below.
        if (failure.counter === undefined) {
          sequenceHints.delete(context.organizationId);
        } else {
          rememberSequence(context.organizationId, failure.counter);
          reported = failure.counter;
        }
        continue;
      }
      if (failure.retryable || failure.index === counterIndex) {
        if (attempt >= MAX_ATTEMPTS) throw new WriteConflictError(`Gave up after ${attempt} conflicting attempts`);
        await backOff(attempt, 5, 100);
        continue;
      }
      if (failure.index === idempotencyIndex && context.idempotency) throw inProgressError();
      const write = plan.writes[failure.index ?? -1];
      throw (
        (await write?.onConditionFailed?.()) ??
        new ApiError(409, 'customer-api.request.conflict', 'Conflict', { detail: 'The resource changed concurrently; retry the request.' })
      );
    }
  }

  private envelopes(organizationId: string, drafts: EventDraft[], lastSequence: number, now: Date): EventEnvelope[] {
    return drafts.map((draft, index) => eventEnvelope(draft, organizationId, newEventId(lastSequence + index + 1), now.toISOString()));
  }

  private auditEvent(context: WriteContext, draft: AuditDraft, now: Date): AuditEvent {
    return {
      id: newId('aud', now.getTime()),
      ...draft,
      occurredAt: now.toISOString(),
      actor: context.actor,
      traceId: context.traceId,
      idempotencyKey: context.idempotency?.key ?? null,
    };
  }

  private sequenceUpdate(organizationId: string, expected: number, next: number): TransactItem {
    const envelope = envelopeAssignments(eventSequenceEntity);
    return {
      Update: {
        TableName: this.tables.events,
        Key: eventSequenceEntity.key({ organizationId }),
        UpdateExpression: `SET #last = :next, ${envelope.assignments}`,
        ConditionExpression: expected === 0 ? 'attribute_not_exists(pk)' : '#last = :expected',
        // On a stale expectation the cancellation reason carries the counter's value.
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        ExpressionAttributeNames: { '#last': 'last', ...envelope.names },
        ExpressionAttributeValues: { ':next': next, ...envelope.values, ...(expected === 0 ? {} : { ':expected': expected }) },
      },
    };
  }

  private eventPut(item: Record<string, unknown>): TransactItem {
    return { Put: { TableName: this.tables.events, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } };
  }

  /**
   * Commits; on cancellation says which item's condition failed (with the counter's value when it
   * was the sequence counter's), or that it may be retried.
   */
  private async transact(items: TransactItem[], counterIndex: number): Promise<{ index?: number; retryable: boolean; counter?: number } | undefined> {
    try {
      await documentClient.send(new TransactWriteCommand({ TransactItems: items }));
      return undefined;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      const failedIndex = reasons.findIndex((reason) => reason.Code === 'ConditionalCheckFailed');
      if (failedIndex >= 0) {
        const counter = failedIndex === counterIndex ? counterValueOf(reasons[failedIndex]?.Item) : undefined;
        return { index: failedIndex, retryable: false, counter };
      }
      // Another transaction touched the same items, or capacity ran short: try again. Anything
      // else (an item too large, a validation error) would fail every time: report it.
      const codes = reasons.map((reason) => reason.Code ?? 'None').filter((code) => code !== 'None');
      if (codes.every((code) => RETRYABLE_CANCELLATIONS.has(code))) return { retryable: true };
      throw new Error(`Transaction cancelled: ${codes.join(', ')}`, { cause: error });
    }
  }
}

/**
 * DynamoDB refuses a transaction over 4 MB; bulk work stops adding to a chunk at this size of its
 * writes and events (as JSON, counted in UTF-8 bytes like the store counts them: an upper bound of
 * their stored size), leaving room for the writer's own items and the attribute names.
 */
export const BULK_CHUNK_BYTES = 3_500_000;

export function storeWriteBytes(write: StoreWrite): number {
  return Buffer.byteLength(JSON.stringify(write.item));
}

/**
 * The actions one chunk of bulk work (e.g. import rows) may use in a transaction of `maxActions`
 * (DynamoDB's limit unless a test asks for smaller ones), with `reserved` actions left for the
 * sequence counter and the progress checkpoint. The chunk's own event batch items are among its
 * actions: the planner counts them (lib/platform/events/batches.ts `batchLengths`).
 */
export function bulkChunkActions({ reserved = 2, maxActions = MAX_TRANSACTION_ITEMS }: { reserved?: number; maxActions?: number } = {}): number {
  return Math.min(maxActions, MAX_TRANSACTION_ITEMS) - reserved;
}
