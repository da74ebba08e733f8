import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * Counts the DynamoDB requests a piece of code makes, at the SDK client (the same count AWS
 * bills), and the capacity DynamoDB reports consuming for them. Deterministic, unlike timing.
 */

export interface CountedRequest {
  /** `GetItem`, `Query`, `UpdateItem`, `TransactWriteItems`, … */
  operation: string;
  /** Capacity units DynamoDB reports for the request, when it reports any. */
  capacityUnits?: number;
  failed?: boolean;
}

export interface RequestCounter {
  readonly requests: CountedRequest[];
  /** Forgets what was counted so far. */
  reset(): void;
  /** Operation names in request order. */
  operations(): string[];
  /** Removes the counting middleware from the client. */
  stop(): void;
}

type Units = { CapacityUnits?: number } | Array<{ CapacityUnits?: number }> | undefined;

function unitsOf(consumed: Units): number | undefined {
  if (consumed === undefined) return undefined;
  const all = Array.isArray(consumed) ? consumed : [consumed];
  return all.reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);
}

let counters = 0;

export function countDynamoDbRequests(client: DynamoDBClient): RequestCounter {
  const requests: CountedRequest[] = [];
  const name = `countRequests${(counters += 1)}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      const input = args.input as Record<string, unknown>;
      // Asking for the capacity changes nothing else of the request.
      if (operation !== 'BatchWriteItem' || input.ReturnConsumedCapacity === undefined) input.ReturnConsumedCapacity ??= 'TOTAL';
      const counted: CountedRequest = { operation };
      requests.push(counted);
      try {
        const result = await next(args);
        const units = unitsOf((result.output as { ConsumedCapacity?: Units }).ConsumedCapacity);
        if (units !== undefined) counted.capacityUnits = units;
        return result;
      } catch (error) {
        counted.failed = true;
        throw error;
      }
    },
    { step: 'initialize', name },
  );
  return {
    requests,
    reset: () => requests.splice(0, requests.length),
    operations: () => requests.map((request) => request.operation),
    stop: () => client.middlewareStack.remove(name),
  };
}
