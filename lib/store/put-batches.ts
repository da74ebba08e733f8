import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from './dynamodb-client.ts';
import { GroupCommit } from './group-commit.ts';

/**
 * Unconditional puts sent many to a request: `BatchWriteItem`s, by group commit (lib/store/
 * group-commit.ts). For an item only one writer ever puts (or whose last put is the truth): a put
 * with no condition costs DynamoDB a fraction of a conditional write (docs/performance.md
 * "Webhooks"). Items DynamoDB leaves unprocessed are sent again.
 */

/** DynamoDB's most items in one `BatchWriteItem`. */
const MAX_ITEMS = 25;
const MAX_IN_FLIGHT = 8;
/** Rounds for items left unprocessed (throttling) before the put fails. */
const MAX_TRIES = 6;

export class PutBatches {
  private readonly commit = new GroupCommit<{ tableName: string; item: Record<string, unknown> }, void>((tableName, puts) => this.send(tableName, puts), { maxEntries: MAX_ITEMS, maxInFlight: MAX_IN_FLIGHT });

  put(tableName: string, item: Record<string, unknown>): Promise<void> {
    return this.commit.submit(tableName, { tableName, item });
  }

  private async send(tableName: string, puts: readonly { item: Record<string, unknown> }[]): Promise<void[]> {
    // One put per item in a request (DynamoDB refuses a batch naming an item twice): a second put of an item goes in the next round, so the last stands.
    const rounds: Record<string, unknown>[][] = [];
    const seen = new Map<string, number>();
    for (const { item } of puts) {
      const key = `${String(item.pk)}\n${String(item.sk)}`;
      const occurrence = seen.get(key) ?? 0;
      seen.set(key, occurrence + 1);
      (rounds[occurrence] ??= []).push(item);
    }
    for (const round of rounds) {
      let requests = round.map((item) => ({ PutRequest: { Item: item } }));
      for (let tries = 1; requests.length > 0; tries += 1) {
        if (tries > MAX_TRIES) throw new Error(`BatchWriteItem left ${requests.length} puts unprocessed ${MAX_TRIES} times`);
        if (tries > 1) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** tries * Math.random()));
        const { UnprocessedItems } = await documentClient.send(new BatchWriteCommand({ RequestItems: { [tableName]: requests } }));
        requests = (UnprocessedItems?.[tableName] ?? []) as typeof requests;
      }
    }
    return puts.map(() => undefined);
  }
}
