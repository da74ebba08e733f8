import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
// The marshaller the document client itself uses (a dependency of @aws-sdk/lib-dynamodb).
import { marshall } from '@aws-sdk/util-dynamodb';
import { documentClient } from '../../lib/platform/aws/dynamodb-client.ts';
import type { TransactItem } from '../../lib/platform/dynamo/transaction-items.ts';

/**
 * The size DynamoDB counts for an item against its 400 KB limit, by its documented rules: every
 * attribute name and string in UTF-8 bytes, a number 1 byte per 2 significant digits plus 1 (here
 * every digit counts, so never less than DynamoDB counts), binary its bytes, a boolean or null 1,
 * a map or list 3 bytes plus 1 per element. Measured on the item as the app's document client
 * marshals it, so what is measured is what is sent. DynamoDB Local refuses an item one byte over
 * 409,600 by this count (checked while writing test/unit/boms/bom-worst-case-size.test.ts).
 */

/** DynamoDB's item limit, 400 KB of 1,024 bytes. */
export const DYNAMODB_ITEM_MAX_BYTES = 400 * 1024;
/** DynamoDB's limit of the items of one transaction together, 4 MB (counted as 4,000,000 bytes, the lower reading). */
export const DYNAMODB_TRANSACTION_MAX_BYTES = 4_000_000;

type Item = Record<string, NativeAttributeValue>;

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

function valueBytes(value: AttributeValue): number {
  if (value.S !== undefined) return utf8(value.S);
  if (value.N !== undefined) return Math.ceil(value.N.replace(/[^0-9]/g, '').length / 2) + 1;
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.L !== undefined) return 3 + value.L.reduce((sum, element) => sum + 1 + valueBytes(element), 0);
  if (value.M !== undefined) return 3 + Object.entries(value.M).reduce((sum, [name, element]) => sum + 1 + utf8(name) + valueBytes(element), 0);
  if (value.SS !== undefined) return value.SS.reduce((sum, element) => sum + utf8(element), 0);
  if (value.NS !== undefined) return value.NS.reduce((sum, element) => sum + valueBytes({ N: element }), 0);
  if (value.BS !== undefined) return value.BS.reduce((sum, element) => sum + element.byteLength, 0);
  throw new Error(`No size rule for ${JSON.stringify(value)}`);
}

/** The stored size of an item, in bytes as DynamoDB counts them. */
export function dynamoDbItemBytes(item: Item): number {
  const marshalled = marshall(item, documentClient.config.translateConfig?.marshallOptions);
  return Object.entries(marshalled).reduce((sum, [name, value]) => sum + utf8(name) + valueBytes(value), 0);
}

/**
 * The item an UpdateItem leaves: `item` with the update's `SET name = :value` assignments and
 * `REMOVE name`s applied (the only forms this helper knows; anything else throws).
 */
export function updatedItem(item: Item, update: NonNullable<TransactItem['Update']>): Item {
  const names = update.ExpressionAttributeNames ?? {};
  const values = update.ExpressionAttributeValues ?? {};
  const nameOf = (token: string) => names[token] ?? token;
  const result: Item = { ...item };
  const [, set = '', remove = ''] = /^SET (.*?)(?: REMOVE (.*))?$/.exec(update.UpdateExpression ?? '') ?? [];
  for (const assignment of set.split(',')) {
    const [name, value] = assignment.split('=').map((part) => part.trim());
    if (!name || !value?.startsWith(':') || !(value in values)) throw new Error(`updatedItem knows only SET name = :value, not '${assignment}'`);
    result[nameOf(name)] = values[value];
  }
  for (const name of remove.split(',').filter((part) => part.trim() !== '')) delete result[nameOf(name.trim())];
  return result;
}
