import {
  BatchGetCommand,
  QueryCommand,
  type BatchGetCommandOutput,
  type NativeAttributeValue,
  type QueryCommandInput,
  type QueryCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb-client.ts';
import { sleep } from '../core/backoff.ts';

/**
 * The entity layer: every kind of item the service stores declares, once, its type tag, schema
 * version, how its primary key (and index keys) derive from its identity, and the sort-key
 * ranges that list it. Stores build items, key ranges and pages only through these
 * declarations (see docs/architecture.md); none hand-builds an envelope or a range.
 */

/** A primary key: tables with a sort key use both, the others `pk` alone. */
export type Key = { pk: string; sk?: string };
type Item = Record<string, NativeAttributeValue>;

/**
 * `KeyIdentity` is what the primary key derives from (enough to read the item); `Identity` adds
 * what its index keys need (to write it).
 */
export interface EntityDefinition<Identity extends KeyIdentity, KeyIdentity = Identity> {
  /** Stored on every item as `entity`, e.g. `item`, `import-row-error`. */
  type: string;
  /** Stored as `schemaVersion`; raised when the stored shape changes. */
  schemaVersion: number;
  key(identity: KeyIdentity): Key;
  /** Index keys (e.g. `gsi1pk`/`gsi1sk`) an item carries, if any. */
  indexKeys?(identity: Identity): Record<string, string>;
}

export function defineEntity<Identity extends KeyIdentity, KeyIdentity = Identity>(
  definition: EntityDefinition<Identity, KeyIdentity>,
): EntityDefinition<Identity, KeyIdentity> {
  return definition;
}

/**
 * The stored item: the attributes, then the key, index keys and envelope (type tag, schema
 * version) from the declaration, which an attribute of the same name can never override.
 */
export function entityItem<Identity extends KeyIdentity, KeyIdentity>(
  entity: EntityDefinition<Identity, KeyIdentity>,
  identity: Identity,
  attributes: Item,
): Item {
  return { ...attributes, ...entity.key(identity), ...entity.indexKeys?.(identity), entity: entity.type, schemaVersion: entity.schemaVersion };
}

/**
 * For an UpdateItem that may create its item (counters, claims): the SET assignments that stamp
 * the envelope, with their attribute names and values, to merge into the update.
 */
export function envelopeAssignments(entity: Pick<EntityDefinition<never, never>, 'type' | 'schemaVersion'>): {
  assignments: string;
  names: Record<string, string>;
  values: Item;
} {
  return {
    assignments: '#entity = :entity, #schemaVersion = :schemaVersion',
    names: { '#entity': 'entity', '#schemaVersion': 'schemaVersion' },
    values: { ':entity': entity.type, ':schemaVersion': entity.schemaVersion },
  };
}

/**
 * The sort keys `<prefix>#…`: from `<prefix>#` up to `<prefix>$` (`$` is the character after `#`),
 * so a BETWEEN covers exactly the items whose sort key starts with the prefix and a separator.
 */
export function sortKeyRange(prefix: string): { lower: string; upper: string } {
  return { lower: `${prefix}#`, upper: `${prefix}$` };
}

export interface PageQuery {
  tableName: string;
  indexName?: string;
  /** Partition key attribute and value (`pk`, or the index's partition key). */
  partition: { name: string; value: string };
  /** Sort key attribute and the inclusive range to read. */
  sortKey: { name: string; lower: string; upper: string };
  /** The sort key of the last item already served (a cursor position); excluded. */
  after?: string;
  limit: number;
  newestFirst?: boolean;
  /** Base-table reads only (GSIs are eventually consistent). */
  consistent?: boolean;
  projection?: string;
}

export interface Page {
  items: Item[];
  /** Sort key of the last item returned: the next page's `after`. */
  last: string | undefined;
  more: boolean;
}

/**
 * One page of a key-range query. The range narrows to the cursor position itself, which BETWEEN
 * includes and the page drops; one more item is read to know whether more exist. So a page
 * reads at most `limit + 2` items, whatever the partition holds.
 */
export async function readPage(query: PageQuery): Promise<Page> {
  const { lower, upper } = narrowedRange(query.sortKey, query.after, query.newestFirst ?? false);
  const result = await documentClient.send(
    new QueryCommand({
      TableName: query.tableName,
      IndexName: query.indexName,
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :lower AND :upper',
      ExpressionAttributeNames: { '#pk': query.partition.name, '#sk': query.sortKey.name },
      ExpressionAttributeValues: { ':pk': query.partition.value, ':lower': lower, ':upper': upper },
      ScanIndexForward: !(query.newestFirst ?? false),
      ConsistentRead: query.indexName === undefined ? (query.consistent ?? true) : false,
      ProjectionExpression: query.projection,
      Limit: query.limit + (query.after === undefined ? 1 : 2),
    }),
  );
  const items = (result.Items ?? []).filter((item) => item[query.sortKey.name] !== query.after);
  const page = items.slice(0, query.limit);
  return { items: page, last: page.at(-1)?.[query.sortKey.name] as string | undefined, more: items.length > query.limit };
}

function narrowedRange(range: { lower: string; upper: string }, after: string | undefined, newestFirst: boolean): { lower: string; upper: string } {
  if (after === undefined) return range;
  if (newestFirst) return { lower: range.lower, upper: after < range.upper ? after : range.upper };
  return { lower: after > range.lower ? after : range.lower, upper: range.upper };
}

/** Every item of a key range (e.g. all row-error keys of a job), page after page. */
export async function readAll(query: Omit<PageQuery, 'limit' | 'after' | 'newestFirst'>): Promise<Item[]> {
  return queryAll({
    TableName: query.tableName,
    IndexName: query.indexName,
    KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :lower AND :upper',
    ExpressionAttributeNames: { '#pk': query.partition.name, '#sk': query.sortKey.name },
    ExpressionAttributeValues: { ':pk': query.partition.value, ':lower': query.sortKey.lower, ':upper': query.sortKey.upper },
    ConsistentRead: query.indexName === undefined ? (query.consistent ?? true) : false,
    ProjectionExpression: query.projection,
  });
}

/**
 * Every item a query matches, following LastEvaluatedKey page after page: for the sweeper's
 * scans of its sparse indexes, which are not tenant lists and need no cursor.
 */
export async function queryAll(input: Omit<QueryCommandInput, 'ExclusiveStartKey'>): Promise<Item[]> {
  const all: Item[] = [];
  let startKey: Record<string, NativeAttributeValue> | undefined;
  do {
    const page: QueryCommandOutput = await documentClient.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
    all.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return all;
}

const BATCH_GET_LIMIT = 100;
const MAX_UNPROCESSED_ROUNDS = 10;
/** Pages of one `batchGet` in flight at once. */
const BATCH_GET_CONCURRENCY = 8;

/**
 * The items with these keys (absent ones are simply not returned), strongly consistent:
 * BatchGetItem in pages of 100 keys, up to 8 pages at once, unprocessed keys retried with backoff.
 */
export async function batchGet(tableName: string, keys: readonly Key[]): Promise<Item[]> {
  const unique = [...new Map(keys.map((key) => [`${key.pk}\u0000${key.sk ?? ''}`, key])).values()];
  const pages: Array<readonly Key[]> = [];
  for (let start = 0; start < unique.length; start += BATCH_GET_LIMIT) pages.push(unique.slice(start, start + BATCH_GET_LIMIT));
  const found: Item[] = [];
  // Pages go out a few at a time: a reader of thousands of keys (an import's references) waits
  // for a few round trips, not one per page.
  let next = 0;
  const reader = async () => {
    for (let page = pages[next++]; page; page = pages[next++]) found.push(...(await batchGetPage(tableName, page)));
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_GET_CONCURRENCY, pages.length) }, reader));
  return found;
}

/** One page of at most 100 keys, its unprocessed keys retried. */
async function batchGetPage(tableName: string, keys: readonly Key[]): Promise<Item[]> {
  const found: Item[] = [];
  let requested: Record<string, NativeAttributeValue>[] | undefined = [...keys];
  for (let round = 0; requested && requested.length > 0; round += 1) {
    if (round >= MAX_UNPROCESSED_ROUNDS) throw new Error(`BatchGetItem left ${requested.length} keys unprocessed after ${round} rounds`);
    if (round > 0) await sleep(Math.min(1000, 25 * 2 ** round));
    const result: BatchGetCommandOutput = await documentClient.send(
      new BatchGetCommand({ RequestItems: { [tableName]: { Keys: requested, ConsistentRead: true } } }),
    );
    found.push(...(result.Responses?.[tableName] ?? []));
    requested = result.UnprocessedKeys?.[tableName]?.Keys;
  }
  return found;
}

/**
 * One page of a key range read through a filter, examining at most `budget` items (DynamoDB
 * charges for what it reads, not for what the filter keeps). The page holds up to `limit`
 * matches; `last` is the sort key of the last match served when the page is full, otherwise of
 * the last item examined, so the next page never re-reads what this one skipped. A page may
 * hold fewer matches than `limit` (even none) with `more` still true.
 */
export async function readFilteredPage(
  query: Omit<PageQuery, 'newestFirst' | 'projection'> & { filter?: { expression: string; names: Record<string, string>; values: Item }; budget: number },
): Promise<Page> {
  const matches: Item[] = [];
  let examined = 0;
  let position = query.after;
  for (;;) {
    const result = await documentClient.send(
      new QueryCommand({
        TableName: query.tableName,
        IndexName: query.indexName,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :lower AND :upper',
        FilterExpression: query.filter?.expression,
        ExpressionAttributeNames: { '#pk': query.partition.name, '#sk': query.sortKey.name, ...query.filter?.names },
        ExpressionAttributeValues: { ':pk': query.partition.value, ':lower': query.sortKey.lower, ':upper': query.sortKey.upper, ...query.filter?.values },
        ...(position === undefined ? {} : { ExclusiveStartKey: { [query.partition.name]: query.partition.value, [query.sortKey.name]: position } }),
        ConsistentRead: query.indexName === undefined ? (query.consistent ?? true) : false,
        // Growing steps: an unfiltered page reads just past `limit`; a sparse filter reads on, up to the budget.
        Limit: Math.min(query.budget - examined, Math.max(query.limit + 1, examined)),
      }),
    );
    examined += result.ScannedCount ?? 0;
    matches.push(...(result.Items ?? []));
    const lastExamined = result.LastEvaluatedKey?.[query.sortKey.name] as string | undefined;
    if (matches.length > query.limit) {
      const page = matches.slice(0, query.limit);
      return { items: page, last: page.at(-1)?.[query.sortKey.name] as string | undefined, more: true };
    }
    if (lastExamined === undefined) return { items: matches, last: matches.at(-1)?.[query.sortKey.name] as string | undefined, more: false };
    if (examined >= query.budget) return { items: matches, last: lastExamined, more: true };
    position = lastExamined;
  }
}

/** A FilterExpression with its own attribute names and values. */
export interface ItemFilter {
  expression: string;
  names: Record<string, string>;
  values: Item;
}

/**
 * One page of a key range in ONE Query, optionally through a filter: DynamoDB examines at most
 * `budget` items past the cursor (DynamoDB charges for what it reads, not for what the filter
 * keeps). Up to `limit` matches are served; `last` is the sort key of the last match served when
 * more matched, otherwise of the last item examined, so the next page never re-reads what this
 * one skipped. A filtered page may hold fewer than `limit` matches (even none) with `more` true.
 * Without a filter, pass `limit + 1` as the budget.
 */
export async function readPageInOneQuery(query: Omit<PageQuery, 'projection' | 'indexName'> & { filter?: ItemFilter; budget: number }): Promise<Page> {
  const newestFirst = query.newestFirst ?? false;
  const { lower, upper } = narrowedRange(query.sortKey, query.after, newestFirst);
  const result = await documentClient.send(
    new QueryCommand({
      TableName: query.tableName,
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :lower AND :upper',
      FilterExpression: query.filter?.expression,
      ExpressionAttributeNames: { '#pk': query.partition.name, '#sk': query.sortKey.name, ...query.filter?.names },
      ExpressionAttributeValues: { ':pk': query.partition.value, ':lower': lower, ':upper': upper, ...query.filter?.values },
      ScanIndexForward: !newestFirst,
      ConsistentRead: true,
      // The cursor's own item is inside the narrowed range: one more to examine.
      Limit: query.budget + (query.after === undefined ? 0 : 1),
    }),
  );
  const sortKeyOf = (item: Item | undefined) => item?.[query.sortKey.name] as string | undefined;
  const matches = (result.Items ?? []).filter((item) => sortKeyOf(item) !== query.after);
  if (matches.length > query.limit) {
    const page = matches.slice(0, query.limit);
    return { items: page, last: sortKeyOf(page.at(-1)), more: true };
  }
  const lastExamined = sortKeyOf(result.LastEvaluatedKey);
  if (lastExamined !== undefined) return { items: matches, last: lastExamined, more: true };
  return { items: matches, last: sortKeyOf(matches.at(-1)), more: false };
}
