import { BuildReferenceTakenError, StepTakenError, type Build, type BuildDraw, type StoredBuild } from '../domain/build.ts';
import type { BuildStorage } from '../domain/ports.ts';
import { buildClaimKey } from '../../stock/index.ts';
import { entityItem, queryAll } from '../../platform/dynamo/entity.ts';
import { JobStore } from '../../platform/dynamo/job-store.ts';
import { buildIndexKeys, buildJobDeclaration, DRAW_SLICE_PREFIX, drawSliceEntity } from './entities.ts';
import type { StockStore } from '../../stock/store/index.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';

/**
 * Build jobs in the inventory table (docs/boms.md "Builds"): one item per build, written over its
 * version by every step (its checkpoint); its draw slices under the build's own partition, put
 * once each by the step that holds them. The claim of its buildReference is the `builds` import
 * kind's own (lib/stock/domain/claims.ts), so a reference builds once through either door. While
 * a build runs it has an entry in the keys-only active-jobs index, under the builds' shards: the
 * sweeper's bounded read. The reads are the flows' one job store's (lib/platform/dynamo/job-store.ts).
 */

/** The version a build is submitted at (its first step's checkpoint is written over it). */
export const SUBMITTED_BUILD_VERSION = 1;

type Stored = Record<string, unknown>;

export class BuildsStore extends JobStore<Build, StoredBuild> implements BuildStorage<StoreWrite> {
  constructor(
    tableName: string,
    private readonly stock: StockStore,
  ) {
    super(tableName, buildJobDeclaration);
  }

  async idOfReference(organizationId: string, buildReference: string): Promise<string | null | undefined> {
    const key = buildClaimKey(buildReference);
    const entry = (await this.stock.getEntries(organizationId, [key])).get(key);
    return entry ? (entry.record.buildId ?? null) : undefined;
  }

  createWrites(organizationId: string, build: Build): StoreWrite[] {
    const claim = this.stock.entryWrite(organizationId, {
      key: buildClaimKey(build.buildReference),
      jobId: build.importJobId ?? build.id,
      movementIds: [],
      buildId: build.id,
      appliedAt: build.submittedAt,
    });
    return [
      this.newJobWrite({ organizationId, id: build.id }, this.attributes(organizationId, build, SUBMITTED_BUILD_VERSION)),
      // Another request or an import took the reference meanwhile.
      {
        ...claim,
        onConditionFailed: async () =>
          new BuildReferenceTakenError(build.buildReference, (await this.idOfReference(organizationId, build.buildReference)) ?? null),
      },
    ];
  }

  releaseClaimWrite(organizationId: string, build: Build): StoreWrite {
    return this.stock.entryReleaseWrite(organizationId, buildClaimKey(build.buildReference), build.id);
  }

  checkpointWrite(organizationId: string, build: Build, expectedVersion: number): StoreWrite {
    return {
      item: {
        Put: {
          TableName: this.tableName,
          Item: this.item({ organizationId, id: build.id }, this.attributes(organizationId, build, expectedVersion + 1)),
          ConditionExpression: 'version = :read',
          ExpressionAttributeValues: { ':read': expectedVersion },
        },
      },
      onConditionFailed: () => new StepTakenError(`Build ${build.id} moved past version ${expectedVersion}`),
    };
  }

  sliceWrite(organizationId: string, buildId: string, index: number, draws: BuildDraw[]): StoreWrite {
    return {
      item: {
        Put: {
          TableName: this.tableName,
          Item: entityItem(drawSliceEntity, { organizationId, buildId, index }, { draws }),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    };
  }

  async slices(organizationId: string, buildId: string): Promise<BuildDraw[][]> {
    const { pk } = drawSliceEntity.key({ organizationId, buildId, index: 0 });
    const items = await queryAll({
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :slice)',
      ExpressionAttributeValues: { ':pk': pk, ':slice': `${DRAW_SLICE_PREFIX}#` },
      ConsistentRead: true,
    });
    return items.map((item) => item.draws as BuildDraw[]);
  }

  /** A build's item holds it with its version and, while it runs, its active-jobs entry. */
  private attributes(organizationId: string, build: Build, version: number): Stored {
    const active = build.progress.phase === 'done' ? {} : buildIndexKeys.active(organizationId, build.id);
    return { organizationId, build, version, ...active };
  }
}
