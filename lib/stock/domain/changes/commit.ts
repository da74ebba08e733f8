import { ApiError, UniqueKeyTakenError } from '../../../platform/core/errors.ts';
import type { StockRecord } from '../../../inventory/index.ts';
import { RecordsFirstError } from './command.ts';

/**
 * A stock change is decided on stock as read and committed under version conditions
 * (docs/inventory.md "Writing stock over JSON"): when another write changed one of its records,
 * totals or claims in between, the transaction is cancelled and the change is decided again on
 * what is stored then, which now answers its compare-and-set lines as stale, its natural keys as
 * applied, or commits. After a few lost races in a row the client is told to retry. A change
 * whose new records do not fit its transaction creates them first (RecordsFirstError).
 */
const MAX_DECISIONS = 4;

export async function commitStockChange<T>(
  commit: (precreated: ReadonlySet<string>) => Promise<T>,
  createRecords: (records: StockRecord[]) => Promise<void>,
): Promise<T> {
  const precreated = new Set<string>();
  for (let decision = 1; ; decision += 1) {
    try {
      return await commit(precreated);
    } catch (error) {
      if (error instanceof RecordsFirstError && decision < MAX_DECISIONS) {
        await createRecords(error.records);
        for (const record of error.records) precreated.add(record.id);
        continue;
      }
      if (!lostRace(error)) throw error;
      if (decision >= MAX_DECISIONS)
        throw new ApiError(409, 'customer-api.request.conflict', 'Conflict', {
          detail: 'The stock changed concurrently several times while the change was decided; retry the request.',
        });
    }
  }
}

/** A write condition failed: a record's version, a new record's or claim's key taken meanwhile. */
function lostRace(error: unknown): boolean {
  return error instanceof UniqueKeyTakenError || (error instanceof ApiError && error.code === 'customer-api.request.conflict');
}

/** A command decided on what it read and committed under version conditions: decided again after a lost race, at most a few times (reservations). */
export function decideAgainOnLostRace<T>(commit: () => Promise<T>): Promise<T> {
  return commitStockChange(
    () => commit(),
    () => Promise.reject(new Error('This command creates no stock records first')),
  );
}
