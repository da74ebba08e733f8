import { BatchExecuteStatementCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb-client.ts';
import type { Key } from './entity.ts';
import { GroupCommit } from './group-commit.ts';

/**
 * Single-item writes with their own conditions, sent many to a request: PartiQL statements in
 * `BatchExecuteStatement`s, by group commit (lib/platform/dynamo/group-commit.ts). Each statement succeeds
 * or fails on its own, as the `PutItem` or `UpdateItem` it stands for would, and costs the same
 * write; what a request's overhead costs (the SDK's pipeline, the round trip) is paid once for
 * up to 25 (docs/performance.md "Webhooks"). As lib/platform/dynamo/batch-write-puts.ts, one batcher serves one
 * invocation.
 */

export interface BatchedWrite {
  statement: string;
  parameters: unknown[];
  /** The item written: two statements on one item never share a request (DynamoDB refuses the whole batch). */
  itemKey: string;
  /** A refused condition returns the item as it stood. */
  returnOldItem?: boolean;
}

export type BatchedWriteOutcome =
  { written: true } | { written: false; reason: 'condition-failed' | 'duplicate-item'; item: Record<string, unknown> | undefined };

/** DynamoDB's most statements in one `BatchExecuteStatement`. */
const MAX_STATEMENTS = 25;
/** Requests on their way at once: an invocation's writes that come while one is on its way need not wait for its round trip. */
const MAX_IN_FLIGHT = 8;
/** A statement refused for a passing reason (throttled, a transaction on its item) is sent again, up to this many times in all. */
const MAX_TRIES = 5;
const PASSING = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded', 'InternalServerError']);

export class BatchStatements {
  private readonly commit = new GroupCommit<BatchedWrite, BatchedWriteOutcome | Error>((_, writes) => this.send(writes), {
    maxEntries: MAX_STATEMENTS,
    maxInFlight: MAX_IN_FLIGHT,
  });

  async write(write: BatchedWrite): Promise<BatchedWriteOutcome> {
    const outcome = await this.commit.submit('writes', write);
    if (outcome instanceof Error) throw outcome;
    return outcome;
  }

  private async send(writes: readonly BatchedWrite[]): Promise<(BatchedWriteOutcome | Error)[]> {
    const outcomes: (BatchedWriteOutcome | Error | undefined)[] = writes.map(() => undefined);
    let waiting = writes.map((_, index) => index);
    for (let tries = 1; waiting.length > 0; tries += 1) {
      // One statement per item in a request; a second one on the same item goes in the next.
      const seen = new Set<string>();
      const now = waiting.filter((index) => !seen.has(writes[index]!.itemKey) && seen.add(writes[index]!.itemKey));
      const later = waiting.filter((index) => !now.includes(index));
      let Responses: NonNullable<Awaited<ReturnType<typeof sendStatements>>['Responses']>;
      try {
        Responses = (await sendStatements(now.map((index) => writes[index]!))).Responses ?? [];
      } catch (error) {
        // The request failed: the writes not answered yet fail with it, those an earlier request answered keep their outcome.
        for (const index of waiting) outcomes[index] = error instanceof Error ? error : new Error(String(error));
        break;
      }
      const retry: number[] = [];
      now.forEach((index, position) => {
        const error = Responses[position]?.Error;
        if (!error) outcomes[index] = { written: true };
        else if (error.Code === 'ConditionalCheckFailed') outcomes[index] = { written: false, reason: 'condition-failed', item: error.Item };
        else if (error.Code === 'DuplicateItem') outcomes[index] = { written: false, reason: 'duplicate-item', item: undefined };
        else if (PASSING.has(error.Code ?? '') && tries < MAX_TRIES) retry.push(index);
        else outcomes[index] = new Error(`DynamoDB refused a batched write (${error.Code ?? 'unknown'}): ${error.Message ?? ''}`);
      });
      if (retry.length > 0) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** tries * Math.random()));
      waiting = [...retry, ...later];
    }
    return outcomes as (BatchedWriteOutcome | Error)[];
  }
}

function sendStatements(writes: readonly BatchedWrite[]) {
  return documentClient.send(
    new BatchExecuteStatementCommand({
      Statements: writes.map((write) => ({
        Statement: write.statement,
        Parameters: write.parameters,
        ...(write.returnOldItem ? { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const } : {}),
      })),
    }),
  );
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** `INSERT` of a whole item: refused (`duplicate-item`) when one with its key exists, as a put with `attribute_not_exists`. */
export function insertStatement(tableName: string, item: Record<string, unknown>): BatchedWrite {
  const attributes = Object.entries(item).filter(([, value]) => value !== undefined);
  return {
    statement: `INSERT INTO ${quoted(tableName)} VALUE {${attributes.map(([name]) => `'${name.replaceAll("'", "''")}': ?`).join(', ')}}`,
    parameters: attributes.map(([, value]) => value),
    itemKey: `${String(item.pk)}\n${String(item.sk)}`,
  };
}

/**
 * `UPDATE` of an existing item: `set` paths (dotted: `task.status`) to values, `remove` paths, under
 * `conditions` (paths equal to values) besides the key. Refused (`condition-failed`) when the item
 * is absent too; with `returnOldItem`, the item as it stood comes back (none when absent).
 */
export function updateStatement(
  tableName: string,
  key: Key,
  change: { set: Record<string, unknown>; remove?: readonly string[]; conditions: Record<string, unknown>; returnOldItem?: boolean },
): BatchedWrite {
  const path = (dotted: string) => dotted.split('.').map(quoted).join('.');
  const sets = Object.entries(change.set);
  const conditions = Object.entries(change.conditions);
  return {
    statement: [
      `UPDATE ${quoted(tableName)}`,
      ...sets.map(([name]) => `SET ${path(name)} = ?`),
      ...(change.remove ?? []).map((name) => `REMOVE ${path(name)}`),
      key.sk === undefined ? `WHERE "pk" = ?` : `WHERE "pk" = ? AND "sk" = ?`,
      ...conditions.map(([name]) => `AND ${path(name)} = ?`),
    ].join(' '),
    parameters: [...sets.map(([, value]) => value), key.pk, ...(key.sk === undefined ? [] : [key.sk]), ...conditions.map(([, value]) => value)],
    itemKey: `${key.pk}\n${key.sk ?? ''}`,
    ...(change.returnOldItem ? { returnOldItem: true } : {}),
  };
}
