import { TABLES } from '../lib/platform/storage/tables.ts';

/**
 * DynamoDB write capacity units of one request as AWS bills it on demand (docs/performance.md
 * "Webhooks"), counted from the request itself, since DynamoDB Local's own capacity figures leave
 * out what matters here (refused conditions, index writes):
 * - an item put, updated or deleted, alone, in a `BatchWriteItem` or as a PartiQL statement: 1
 *   unit per started KB of the item as sent (an update: of the values it sets; a delete: 1);
 * - a transactional write: twice that;
 * - a conditional write DynamoDB refused still bills 1 unit (a refused transaction is not counted:
 *   no flow here relies on one);
 * - each global index whose partition key the item carries (or the update sets or removes): 1
 *   more, the index's own write.
 * Items are measured as DynamoDB sizes them: attribute names and values in UTF-8 bytes, about 1
 * byte per 2 digits of a number, a few bytes per map or list.
 */

const INDEX_KEYS = new Set(Object.values(TABLES).flatMap((table) => (table.globalIndexes ?? []).map((index) => index.partitionKey.name)));
const KB = 1024;

function valueBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') return Math.ceil(String(value).replace(/[-.]/g, '').length / 2) + 1;
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...(value as Set<unknown>)].reduce<number>((sum, member) => sum + valueBytes(member), 0);
  if (Array.isArray(value)) return 3 + value.reduce<number>((sum, element) => sum + valueBytes(element) + 1, 0);
  if (typeof value === 'object') return 3 + Object.entries(value).reduce((sum, [name, inner]) => sum + Buffer.byteLength(name) + valueBytes(inner) + 1, 0);
  return 1;
}

/** An item's size: its attributes' names and values. */
export function itemBytes(item: Record<string, unknown>): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueBytes(value), 0);
}

const unitsOfBytes = (bytes: number) => Math.max(1, Math.ceil(bytes / KB));
const indexesOfItem = (item: Record<string, unknown>) => Object.keys(item).filter((name) => INDEX_KEYS.has(name)).length;

interface UpdateInput {
  Key?: Record<string, unknown>;
  UpdateExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

function updateUnits(input: UpdateInput): number {
  const names = new Set(Object.values(input.ExpressionAttributeNames ?? {}));
  const expression = input.UpdateExpression ?? '';
  const indexes = [...INDEX_KEYS].filter((name) => names.has(name) || new RegExp(`\\b${name}\\b`).test(expression)).length;
  return unitsOfBytes(itemBytes(input.Key ?? {}) + itemBytes(input.ExpressionAttributeValues ?? {})) + indexes;
}

type Action = { Put?: { Item?: Record<string, unknown> }; Update?: UpdateInput; Delete?: unknown; ConditionCheck?: unknown };

function actionUnits(action: Action): number {
  if (action.Put?.Item) return unitsOfBytes(itemBytes(action.Put.Item)) + indexesOfItem(action.Put.Item);
  if (action.Update) return updateUnits(action.Update);
  return 1;
}

export interface WriteRequest {
  operation: string;
  input: Record<string, unknown>;
  output?: Record<string, unknown>;
  /** The error's name when the request failed. */
  error?: string;
}

/** The write units one request bills (0 for reads, and for a write that failed for another reason than its condition). */
export function writeUnitsOf({ operation, input, output, error }: WriteRequest): number {
  const refused = error === 'ConditionalCheckFailedException';
  if (error !== undefined && !refused) return 0;
  if (operation === 'PutItem') return refused ? 1 : actionUnits({ Put: { Item: input.Item as Record<string, unknown> } });
  if (operation === 'UpdateItem') return refused ? 1 : updateUnits(input as UpdateInput);
  if (operation === 'DeleteItem') return 1;
  if (operation === 'TransactWriteItems') return ((input.TransactItems ?? []) as Action[]).reduce((sum, action) => sum + 2 * actionUnits(action), 0);
  if (operation === 'BatchWriteItem') {
    // Items DynamoDB left unprocessed were not written (they come back in a later request).
    type Request = { PutRequest?: { Item: Record<string, unknown> }; DeleteRequest?: { Key: Record<string, unknown> } };
    const keyOf = (request: Request) => {
      const key = request.PutRequest?.Item ?? request.DeleteRequest?.Key ?? {};
      return `${String(key.pk)}\n${String(key.sk)}`;
    };
    const unprocessed = new Set(
      Object.values((output?.UnprocessedItems ?? {}) as Record<string, Request[]>)
        .flat()
        .map(keyOf),
    );
    const requests = Object.values((input.RequestItems ?? {}) as Record<string, Request[]>).flat();
    return requests
      .filter((request) => !unprocessed.has(keyOf(request)))
      .reduce((sum, request) => sum + (request.PutRequest ? actionUnits({ Put: request.PutRequest }) : 1), 0);
  }
  if (operation === 'BatchExecuteStatement') {
    const statements = (input.Statements ?? []) as { Parameters?: unknown[] }[];
    // Every statement DynamoDB ran bills, its condition refused or not; one refused for another reason (a duplicate item, a throttle) did not run.
    const responses = (output?.Responses ?? []) as { Error?: { Code?: string } }[];
    return statements.reduce((sum, statement, index) => {
      const code = responses[index]?.Error?.Code;
      if (code !== undefined && code !== 'ConditionalCheckFailed') return sum;
      return sum + unitsOfBytes(valueBytes(statement.Parameters ?? []));
    }, 0);
  }
  return 0;
}
