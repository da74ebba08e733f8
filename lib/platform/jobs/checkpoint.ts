import { ApiError } from '../core/errors.ts';
import type { EventDraft } from '../events/types.ts';
import type { AuditDraft } from '../audit/types.ts';
import type { CommandWriter, WriteContext } from '../write/ports.ts';
import { backOff } from '../core/backoff.ts';

/**
 * Committing one step of a background flow exactly once (docs/architecture.md "Checkpoints and
 * hand-offs"): the step's writes go in ONE transaction with the flow's checkpoint write, whose
 * condition (the checkpoint is still where this delivery read it) fails when another delivery of
 * the same message committed the step first. However often a message is delivered, each step is
 * applied once.
 */

/**
 * The name of the error a store's checkpoint write fails with when its condition does not hold
 * (e.g. `ChunkAlreadyAppliedError` of lib/imports/store/import-jobs-store.ts): matched by name, as the
 * domain does not import the store.
 */
export const STEP_ALREADY_COMMITTED_ERROR = 'ChunkAlreadyAppliedError';

/** One step: the checkpoint write (its condition decides who commits), the step's own writes, events and audit entry. */
export interface Step<Write> {
  checkpoint: Write;
  writes: Write[];
  events: EventDraft[];
  audit?: AuditDraft;
}

/**
 * Commits the step, or finds that another delivery already did (`already-committed`: this one
 * stops, the other carries on). Any other failure is thrown, a conflict (`isWriteConflict`)
 * included: the caller decides the step again or gives up. `step` is built on each attempt of
 * the writer (a checkpoint write may stamp the time).
 */
export async function commitStep<Write>(
  writer: CommandWriter<Write>,
  context: WriteContext,
  step: () => Step<Write>,
): Promise<'committed' | 'already-committed'> {
  try {
    await writer.run(context, async () => {
      const { checkpoint, writes, events, audit } = step();
      // The checkpoint first: when another delivery moved it, its condition is the failure reported.
      return { writes: [checkpoint, ...writes], ...(audit ? { audit } : {}), events, result: undefined };
    });
    return 'committed';
  } catch (error) {
    if ((error as Error).name === STEP_ALREADY_COMMITTED_ERROR) return 'already-committed';
    throw error;
  }
}

/**
 * The name of the error a writer gives up with when it lost the race for the organization's
 * event sequence on every one of its tries (`WriteConflictError` of
 * lib/platform/dynamo/transaction-writer.ts): matched by name, as the domain does not import the store.
 */
export const SEQUENCE_RACE_LOST_ERROR = 'WriteConflictError';

/**
 * Another writer changed or created a record this step decided on, or kept winning the race for
 * the event sequence: decide it again from fresh reads, after a random pause. Contention is
 * never the step's fault, so it never fails the work.
 */
export function isWriteConflict(error: unknown): boolean {
  return (error instanceof ApiError && error.status === 409) || (error as Error | undefined)?.name === SEQUENCE_RACE_LOST_ERROR;
}

/**
 * Waits a random while before deciding a step again after a conflict, longer after each attempt
 * up to `maxFactor` × `baseMs`, so that competing writers spread out.
 */
export function pauseBeforeRetry(attempt: number, baseMs: number, maxFactor = 8): Promise<void> {
  return backOff(attempt, baseMs, baseMs * maxFactor);
}
