import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isExportFinished, type ExportJobState } from '../domain/job.ts';
import { documentClient } from '../../platform/aws/dynamodb-client.ts';
import { envelopeAssignments } from '../../platform/dynamo/entity.ts';
import { exportSlotsEntity } from './entities.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';

/**
 * The running exports of an organization (docs/exports.md "Fairness"): one item whose string set
 * `running` holds the ids of the exports that hold a slot. A slot is taken by a conditional
 * update (the set has room, or already holds the job) before the export starts, and given back in
 * the transaction that finishes the export. A slot whose holder is finished or gone (it ended
 * before this release existed, or its job expired) is taken back when the set is found full.
 */

export class ExportSlotsStore {
  constructor(
    private readonly tableName: string,
    private readonly jobs: { get(organizationId: string, jobId: string): Promise<ExportJobState | undefined> },
  ) {}

  /** Takes a slot for the job when fewer than `cap` are held (or it holds one already); false when all are held by running exports. */
  async acquire(organizationId: string, jobId: string, cap: number): Promise<boolean> {
    if (await this.tryAdd(organizationId, jobId, cap)) return true;
    const stale = await this.staleHolders(organizationId);
    if (stale.length === 0) return false;
    await this.remove(organizationId, stale);
    return this.tryAdd(organizationId, jobId, cap);
  }

  /** Gives the job's slot back; goes in the transaction that finishes the export. */
  releaseWrite(organizationId: string, jobId: string): StoreWrite {
    return {
      item: {
        Update: {
          TableName: this.tableName,
          Key: exportSlotsEntity.key({ organizationId }),
          UpdateExpression: 'DELETE #running :ids',
          ExpressionAttributeNames: { '#running': 'running' },
          ExpressionAttributeValues: { ':ids': new Set([jobId]) },
        },
      },
    };
  }

  async holders(organizationId: string): Promise<string[]> {
    const result = await documentClient.send(
      new GetCommand({ TableName: this.tableName, Key: exportSlotsEntity.key({ organizationId }), ConsistentRead: true }),
    );
    const running = result.Item?.running as Set<string> | undefined;
    return running ? [...running] : [];
  }

  private async tryAdd(organizationId: string, jobId: string, cap: number): Promise<boolean> {
    const envelope = envelopeAssignments(exportSlotsEntity);
    try {
      await documentClient.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: exportSlotsEntity.key({ organizationId }),
          UpdateExpression: `SET ${envelope.assignments} ADD #running :ids`,
          ConditionExpression: 'attribute_not_exists(#running) OR size(#running) < :cap OR contains(#running, :id)',
          ExpressionAttributeNames: { ...envelope.names, '#running': 'running' },
          ExpressionAttributeValues: { ...envelope.values, ':ids': new Set([jobId]), ':cap': cap, ':id': jobId },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  private async staleHolders(organizationId: string): Promise<string[]> {
    const holders = await this.holders(organizationId);
    const jobs = await Promise.all(holders.map((jobId) => this.jobs.get(organizationId, jobId)));
    return holders.filter((_, index) => {
      const job = jobs[index];
      return job === undefined || isExportFinished(job.status);
    });
  }

  private async remove(organizationId: string, jobIds: string[]): Promise<void> {
    await documentClient.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: exportSlotsEntity.key({ organizationId }),
        UpdateExpression: 'DELETE #running :ids',
        ExpressionAttributeNames: { '#running': 'running' },
        ExpressionAttributeValues: { ':ids': new Set(jobIds) },
      }),
    );
  }
}
