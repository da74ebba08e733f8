import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ReplayLoad } from '../domain/ports.ts';
import { documentClient } from '../../platform/aws/dynamodb-client.ts';
import { webhookIndexKeys } from './entities.ts';
import { REPLAY_TASKS_INDEX } from './webhook-task-index.ts';

/**
 * An organization's replay tasks not finished yet, counted on gsi2 (lib/webhooks/store/webhook-task-index.ts):
 * a task enters its partition when created and leaves when it ends, so the count follows the
 * tasks themselves and no counter can drift. Counted up to `atMost` only, so the read stays
 * bounded by the cap (docs/webhooks.md "Replaying").
 */
export class WebhookReplayLoad implements ReplayLoad {
  constructor(private readonly tableName: string) {}

  async tasksInFlight(organizationId: string, atMost: number): Promise<number> {
    let counted = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await documentClient.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: REPLAY_TASKS_INDEX,
          KeyConditionExpression: 'gsi2pk = :organization',
          ExpressionAttributeValues: { ':organization': webhookIndexKeys.replayTasksInFlightOf(organizationId) },
          Select: 'COUNT',
          Limit: atMost - counted,
          ExclusiveStartKey: startKey,
        }),
      );
      counted += page.Count ?? 0;
      startKey = page.LastEvaluatedKey;
    } while (startKey && counted < atMost);
    return counted;
  }
}
