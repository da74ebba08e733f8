import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SweepPosition } from '../domain/sweep-orphans.ts';
import { documentClient } from '../../platform/aws/dynamodb-client.ts';
import { entityItem } from '../../platform/dynamo/entity.ts';
import { sweepPositionEntity } from '../../platform/dynamo/entities.ts';

/**
 * Where a periodic sweep stopped (docs/attachments.md "Deleting"), one item per sweep in the
 * inventory table. Only one run of a sweep is scheduled at a time, so a plain put is enough: a
 * lost position only means a round starts over, never that a body is skipped.
 */
export class SweepPositionsStore {
  constructor(private readonly tableName: string) {}

  of(sweep: string): SweepPosition {
    const key = sweepPositionEntity.key({ sweep });
    return {
      load: async () => {
        const { Item } = await documentClient.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
        return typeof Item?.lastKey === 'string' ? Item.lastKey : undefined;
      },
      save: async (lastKey) => {
        await documentClient.send(
          new PutCommand({
            TableName: this.tableName,
            Item: entityItem(sweepPositionEntity, { sweep }, { lastKey: lastKey ?? null, savedAt: new Date().toISOString() }),
          }),
        );
      },
    };
  }
}
