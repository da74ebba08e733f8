import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb-client.ts';
import { GroupCommit } from './group-commit.ts';

/**
 * Unconditional puts sent many to a request: `BatchWriteItem`s, by group commit
 * (group-commit.ts). For an item only one writer ever puts (or whose last put is the truth): a put
 * with no condition costs DynamoDB a fraction of a conditional write (docs/performance.md
 * "Webhooks"). Items DynamoDB leaves unprocessed are sent again. One batcher serves one
 * invocation (its owner builds it per invocation, never at module scope): a Lambda container
 * runs one invocation at a time, so puts of two invocations never share a request there, and
 * must not locally either (docs/webhooks.md "Delivery").
 */

/** DynamoDB's most items in one `BatchWriteItem`. */
const MAX_ITEMS = 25;
const MAX_IN_FLIGHT = 8;
/** Rounds for items left unprocessed (throttling) before the put fails. */
const MAX_TRIES = 6;

export class BatchWritePuts {
  private readonly commit = new GroupCommit<{ tableName: string; item: Record<string, unknown> }, Error | undefined>(
    (tableName, puts) => this.send(tableName, puts),
    { maxEntries: MAX_ITEMS, maxInFlight: MAX_IN_FLIGHT },
  );

  async put(tableName: string, item: Record<string, unknown>): Promise<void> {
    const failure = await this.commit.submit(tableName, { tableName, item });
    if (failure) throw failure;
  }

  /** Each put's failure, or undefined once it landed: a failed round fails its puts and those after it, never one an earlier round wrote. */
  private async send(tableName: string, puts: readonly { item: Record<string, unknown> }[]): Promise<(Error | undefined)[]> {
    // One put per item in a request (DynamoDB refuses a batch naming an item twice): a second put of an item goes in the next round, so the last stands.
    const rounds: Record<string, unknown>[][] = [];
    const seen = new Map<string, number>();
    for (const { item } of puts) {
      const key = keyOf(item);
      const occurrence = seen.get(key) ?? 0;
      seen.set(key, occurrence + 1);
      (rounds[occurrence] ??= []).push(item);
    }
    const failed = new Map<Record<string, unknown>, Error>();
    let failure: Error | undefined;
    for (const round of rounds) {
      if (failure) {
        for (const item of round) failed.set(item, failure);
        continue;
      }
      let requests = round.map((item) => ({ PutRequest: { Item: item } }));
      try {
        for (let tries = 1; requests.length > 0; tries += 1) {
          if (tries > MAX_TRIES) throw new Error(`BatchWriteItem left ${requests.length} puts unprocessed ${MAX_TRIES} times`);
          if (tries > 1) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** tries * Math.random()));
          const { UnprocessedItems } = await documentClient.send(new BatchWriteCommand({ RequestItems: { [tableName]: requests } }));
          requests = (UnprocessedItems?.[tableName] ?? []) as typeof requests;
        }
      } catch (error) {
        failure = error instanceof Error ? error : new Error(String(error));
        // The puts of this round still unprocessed (all of them, if the request itself failed) fail; those written stand.
        const unwritten = new Set(requests.map((request) => keyOf(request.PutRequest.Item)));
        for (const item of round) if (unwritten.has(keyOf(item))) failed.set(item, failure);
      }
    }
    return puts.map(({ item }) => failed.get(item));
  }
}

const keyOf = (item: Record<string, unknown>) => `${String(item.pk)}\n${String(item.sk)}`;
