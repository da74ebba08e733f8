import { writeFileSync } from 'node:fs';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { writeUnitsOf } from './write-units.ts';

/**
 * For benchmarks of `npm start` (docs/performance.md "Webhooks"): counts the DynamoDB write
 * actions this process commits and keeps the running total in a JSON file, so a benchmark in
 * another process can read what the pipeline wrote between two moments. A write action is one
 * item written or checked, as DynamoDB bills it: 1 per PutItem, UpdateItem and DeleteItem, one
 * per request of a BatchWriteItem that was processed, one per action of a TransactWriteItems (a
 * condition check included) and one per statement of a BatchExecuteStatement not refused. Only
 * requests that succeeded count; a cancelled transaction wrote nothing. Beside them, the write
 * units AWS would bill for the same requests (local/write-units.ts), refused conditions included.
 */

export interface WriteActionTotals {
  writeActions: number;
  /** Write capacity units as AWS bills them (local/write-units.ts), and by operation (`UpdateItem refused` apart). */
  writeUnits: number;
  writeUnitsByOperation: Record<string, number>;
  byOperation: Record<string, number>;
  /** Every request that succeeded, reads included, by operation: where a pipeline's round trips go. */
  requests: Record<string, number>;
}

type Input = { RequestItems?: Record<string, unknown[]>; TransactItems?: unknown[] };
type Output = { Responses?: { Error?: unknown }[]; UnprocessedItems?: Record<string, unknown[]> };

function actionsOf(operation: string, input: Input, output: Output): number {
  if (operation === 'BatchExecuteStatement') return (output.Responses ?? []).filter((response) => !response.Error).length;
  if (operation === 'PutItem' || operation === 'UpdateItem' || operation === 'DeleteItem') return 1;
  const count = (byTable: Record<string, unknown[]> | undefined) => Object.values(byTable ?? {}).reduce((sum, requests) => sum + requests.length, 0);
  // Items DynamoDB left unprocessed were not written (they come back in a later request).
  if (operation === 'BatchWriteItem') return count(input.RequestItems) - count(output.UnprocessedItems);
  if (operation === 'TransactWriteItems') return input.TransactItems?.length ?? 0;
  return 0;
}

export function countWriteActionsToFile(client: DynamoDBClient, path: string): void {
  const totals: WriteActionTotals = { writeActions: 0, writeUnits: 0, writeUnitsByOperation: {}, byOperation: {}, requests: {} };
  const addUnits = (operation: string, units: number) => {
    if (units === 0) return;
    totals.writeUnits += units;
    totals.writeUnitsByOperation[operation] = (totals.writeUnitsByOperation[operation] ?? 0) + units;
  };
  let dirty = true;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = String(context.commandName ?? '').replace(/Command$/, '');
      let result: Awaited<ReturnType<typeof next>>;
      try {
        result = await next(args);
      } catch (error) {
        // A refused condition still bills its write.
        addUnits(
          `${operation} refused`,
          writeUnitsOf({ operation, input: args.input as Record<string, unknown>, error: error instanceof Error ? error.name : 'unknown' }),
        );
        dirty = true;
        throw error;
      }
      addUnits(
        operation,
        writeUnitsOf({ operation, input: args.input as Record<string, unknown>, output: (result.output ?? {}) as unknown as Record<string, unknown> }),
      );
      const actions = actionsOf(operation, args.input as Input, (result.output ?? {}) as Output);
      totals.requests[operation] = (totals.requests[operation] ?? 0) + 1;
      dirty = true;
      if (actions > 0) {
        totals.writeActions += actions;
        totals.byOperation[operation] = (totals.byOperation[operation] ?? 0) + actions;
        dirty = true;
      }
      return result;
    },
    { step: 'initialize', name: 'countWriteActionsToFile' },
  );
  const flush = () => {
    if (!dirty) return;
    dirty = false;
    writeFileSync(path, JSON.stringify(totals));
  };
  flush();
  setInterval(flush, 200).unref();
}
