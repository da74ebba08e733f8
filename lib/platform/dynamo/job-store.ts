import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb-client.ts';
import { activeJobItems, markJobDispatched, SWEEP_PAGE_SIZE, type ShardKey } from './active-jobs-index.ts';
import { entityItem, queryAll, type EntityDefinition, type Key } from './entity.ts';
import type { StoreWrite } from './transaction-writer.ts';

/**
 * The one job store of the queue-driven flows (imports, exports, builds; docs/architecture.md
 * "Background flows"): a job is one item in the inventory table, declared by its flow's entity
 * (lib/<area>/store/entities.ts) with the item ↔ domain mapping beside it. What every flow does
 * the same way is here, once: read a job, put a new one, start it once, and the sweeper's reads
 * of the dispatch partition and the active-jobs index. A flow's own writes (checkpoints, the
 * final state) extend it.
 */

type Item = Record<string, NativeAttributeValue>;

/** A job's identity: what its key derives from. */
export interface JobIdentity {
  organizationId: string;
  jobId: string;
}

/** What the sweeper reads of a flow's job. */
export interface FlowJob {
  organizationId: string;
  id: string;
}

/** A flow's index partitions (lib/platform/storage/tables.ts `ACTIVE_JOBS_INDEX`, gsi1). */
export interface JobIndexKeys {
  /** The flow's own shards of the active-jobs index. */
  activeShard: ShardKey;
  /** A job's entry in them. */
  active(organizationId: string, jobId: string): { activeShard: string; activeJob: string };
  /** gsi1's partition of jobs dispatched before the index was sharded, for a flow that had one. */
  legacyActivePartition?: string;
  /** gsi1's partition of jobs committed and not yet handed to the queue; a flow whose submit sends its job itself has none. */
  pendingPartition?: string;
}

/**
 * A flow's job as stored: its entity and index partitions, the attribute the job is stored
 * under, and the mapping from a stored item to what the flow reads (`Stored`: the job, or the job
 * with its version) and to the job itself.
 */
export interface JobDeclaration<Job extends FlowJob, Stored = Job> {
  entity: EntityDefinition<JobIdentity>;
  index: JobIndexKeys;
  /** The item's attribute holding the job (`job`, `build`). */
  attribute: string;
  fromItem(item: Item): Stored;
  /** The job of an item the sweeper read; undefined for an item that holds none. */
  jobOf(item: Item): Job | undefined;
  isFinished(job: Job): boolean;
}

/**
 * A flow's unfinished jobs in its active-jobs entries: every shard, page by page, then the jobs
 * themselves (BatchGetItem), and gsi1's legacy partition where the flow has one. Apart from the
 * class for a sweeper that reads nothing else (the build sweep), so it bundles none of the rest.
 */
export async function activeJobsOf<Job extends FlowJob>(
  tableName: string,
  declaration: Pick<JobDeclaration<Job, unknown>, 'index' | 'jobOf' | 'isFinished'>,
): Promise<Job[]> {
  const { index, jobOf, isFinished } = declaration;
  const items = await activeJobItems(tableName, index.activeShard, index.legacyActivePartition);
  return items.map((item) => jobOf(item)).filter((job): job is Job => job !== undefined && !isFinished(job));
}

export class JobStore<Job extends FlowJob, Stored = Job> {
  constructor(
    protected readonly tableName: string,
    protected readonly declaration: JobDeclaration<Job, Stored>,
  ) {}

  key(organizationId: string, jobId: string): Key {
    return this.declaration.entity.key({ organizationId, jobId });
  }

  /** The job's item: the attributes, then its key and envelope. */
  protected item(job: Pick<Job, 'organizationId' | 'id'>, attributes: Item): Item {
    return entityItem(this.declaration.entity, { organizationId: job.organizationId, jobId: job.id }, attributes);
  }

  /** The put of a job's first item, only where none is. */
  protected newJobWrite(job: Pick<Job, 'organizationId' | 'id'>, attributes: Item): StoreWrite {
    return { item: { Put: { TableName: this.tableName, Item: this.item(job, attributes), ConditionExpression: 'attribute_not_exists(pk)' } } };
  }

  async get(organizationId: string, jobId: string): Promise<Stored | undefined> {
    const item = await this.read(organizationId, jobId);
    return item ? this.declaration.fromItem(item) : undefined;
  }

  private async read(organizationId: string, jobId: string): Promise<Item | undefined> {
    const { Item } = await documentClient.send(new GetCommand({ TableName: this.tableName, Key: this.key(organizationId, jobId), ConsistentRead: true }));
    return Item;
  }

  /**
   * queued → `started`, by one delivery only: the update is conditioned on the stored job still
   * being queued. A delivery that finds it started already gets the stored job, `won: false`.
   */
  protected async startOnce(job: Job, started: Job): Promise<{ job: Job; won: boolean }> {
    try {
      await documentClient.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: this.key(job.organizationId, job.id),
          UpdateExpression: 'SET #job = :job',
          ConditionExpression: '#job.#status = :queued',
          ExpressionAttributeNames: { '#job': this.declaration.attribute, '#status': 'status' },
          ExpressionAttributeValues: { ':job': started, ':queued': 'queued' },
        }),
      );
      return { job: started, won: true };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // A simultaneous delivery started it first: carry on from its state.
      const stored = await this.read(job.organizationId, job.id);
      const current = stored === undefined ? undefined : this.declaration.jobOf(stored);
      if (!current) throw error;
      return { job: current, won: false };
    }
  }

  /**
   * The queue has the job: it leaves the dispatch partition for the active-jobs index (or leaves
   * both, if a fast worker already finished it). The entry is written here and removed when the
   * job ends, never in between (lib/platform/dynamo/active-jobs-index.ts).
   */
  async markDispatched(organizationId: string, jobId: string): Promise<void> {
    await markJobDispatched(this.tableName, this.key(organizationId, jobId), this.declaration.index.active(organizationId, jobId));
  }

  /** Unfinished jobs handed to the queue, with their last sign of life (`activeJobsOf`). */
  async activeJobs(): Promise<Job[]> {
    return activeJobsOf(this.tableName, this.declaration);
  }

  /** Jobs committed before `cutoff` and never confirmed as sent (none for a flow without a dispatch partition). */
  async pendingDispatch(cutoff: string): Promise<Array<{ organizationId: string; jobId: string }>> {
    const { pendingPartition } = this.declaration.index;
    if (pendingPartition === undefined) return [];
    const items = await queryAll({
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk < :cutoff',
      ExpressionAttributeValues: { ':pk': pendingPartition, ':cutoff': cutoff },
      Limit: SWEEP_PAGE_SIZE,
    });
    return items.map((item) => {
      const job = this.declaration.jobOf(item) as Job;
      return { organizationId: job.organizationId, jobId: job.id };
    });
  }
}
