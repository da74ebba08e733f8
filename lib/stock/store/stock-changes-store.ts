import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { StockRecord } from '../../inventory/index.ts';
import type { InventoryStore } from '../../inventory/store/index.ts';
import type { StockChange } from '../domain/changes/change.ts';
import { documentClient } from '../../platform/aws/dynamodb-client.ts';
import { entityItem } from '../../platform/dynamo/entity.ts';
import { stockChangeEntity } from './entities.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';

/** Stock changes made over JSON (docs/inventory.md "Writing stock over JSON"), each one item under its id, written once with the change. */
export class StockChangesStore {
  constructor(private readonly tableName: string) {}

  createWrite(organizationId: string, change: StockChange): StoreWrite {
    const item = entityItem(stockChangeEntity, { organizationId, id: change.id }, { organizationId, change });
    return { item: { Put: { TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } } };
  }

  /**
   * Stock records a change creates before itself, at 0 (docs/inventory.md "Writing stock over
   * JSON"): each with its list entries in a transaction of its own, in parallel; one another
   * writer created meanwhile is left as it is.
   */
  async createRecords(inventory: InventoryStore, organizationId: string, records: StockRecord[]): Promise<void> {
    await Promise.all(
      records.map(async (record) => {
        const writes = inventory.createWrites(organizationId, 'stock-record', record);
        try {
          await documentClient.send(new TransactWriteCommand({ TransactItems: writes.map((write) => write.item) }));
        } catch (error) {
          const taken =
            error instanceof TransactionCanceledException && (error.CancellationReasons ?? []).some((reason) => reason.Code === 'ConditionalCheckFailed');
          if (!taken) throw error;
        }
      }),
    );
  }

  async get(organizationId: string, id: string): Promise<StockChange | undefined> {
    const { Item } = await documentClient.send(
      new GetCommand({ TableName: this.tableName, Key: stockChangeEntity.key({ organizationId, id }), ConsistentRead: true }),
    );
    return Item?.change as StockChange | undefined;
  }
}
