import type { NativeAttributeValue } from '@aws-sdk/lib-dynamodb';

/**
 * The baseline the import benchmarks compare against: items written with plain BatchWriteItem,
 * 25 per call, by `writers` loops sharing one cursor, unprocessed items retried. Store code is
 * imported on first call, after the bench has set the stack's endpoints in the environment.
 * Resolves with the seconds it took.
 */
export async function batchWriteAll(table: string, items: ReadonlyArray<Record<string, NativeAttributeValue>>, writers: number): Promise<number> {
  const [{ documentClient }, { BatchWriteCommand }] = await Promise.all([import('../lib/platform/aws/dynamodb-client.ts'), import('@aws-sdk/lib-dynamodb')]);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      for (let start = (next += 25) - 25; start < items.length; start = (next += 25) - 25) {
        let requests = items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
        while (requests.length > 0) {
          const result = await documentClient.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
          requests = (result.UnprocessedItems?.[table] as typeof requests | undefined) ?? [];
        }
      }
    }),
  );
  return (performance.now() - started) / 1000;
}
