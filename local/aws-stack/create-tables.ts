import type { AttributeDefinition, CreateTableCommandInput, GlobalSecondaryIndex, KeySchemaElement } from '@aws-sdk/client-dynamodb';
import { physicalTableName, type KeyAttribute, type TableSpec } from '../../lib/platform/storage/tables.ts';

/**
 * A table spec as the CreateTable input the local stack sends: on-demand billing, the spec's
 * key schema, every GSI projecting ALL (as on AWS), the stream where the spec asks for one. TTL is
 * a separate call (UpdateTimeToLive).
 */
export function createTableInput(prefix: string, spec: TableSpec): CreateTableCommandInput {
  const attributes = new Map<string, AttributeDefinition>();
  const keySchema = (partitionKey: KeyAttribute, sortKey?: KeyAttribute): KeySchemaElement[] => {
    const keys: KeySchemaElement[] = [];
    for (const [key, keyType] of [
      [partitionKey, 'HASH'],
      [sortKey, 'RANGE'],
    ] as const) {
      if (key === undefined) continue;
      const known = attributes.get(key.name);
      if (known !== undefined && known.AttributeType !== key.type) {
        throw new Error(`Table ${spec.id}: attribute ${key.name} is declared both ${known.AttributeType} and ${key.type}`);
      }
      attributes.set(key.name, { AttributeName: key.name, AttributeType: key.type });
      keys.push({ AttributeName: key.name, KeyType: keyType });
    }
    return keys;
  };

  const KeySchema = keySchema(spec.partitionKey, spec.sortKey);
  const GlobalSecondaryIndexes: GlobalSecondaryIndex[] = spec.globalIndexes.map((index) => ({
    IndexName: index.indexName,
    KeySchema: keySchema(index.partitionKey, index.sortKey),
    Projection: { ProjectionType: index.projection },
  }));

  return {
    TableName: physicalTableName(prefix, spec.id),
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes.values()],
    KeySchema,
    ...(GlobalSecondaryIndexes.length > 0 ? { GlobalSecondaryIndexes } : {}),
    ...(spec.stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: spec.stream } } : {}),
  };
}
