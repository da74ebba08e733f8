// The builds area's stored kinds, declared once with their keys (docs/architecture.md "Storage: the entity layer"):
// no other module writes these key strings. Each is marked pure, so only build functions bundle them.
import { defineEntity } from '../../platform/dynamo/entity.ts';
import { activeJobIndexKeys } from '../../platform/dynamo/active-jobs-index.ts';
import type { JobDeclaration } from '../../platform/dynamo/job-store.ts';
import type { Build, StoredBuild } from '../domain/build.ts';

/** A build job: one item per build in the organization's builds partition, written over its version by every step. */
export const buildEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; jobId: string }>({
  type: 'build',
  schemaVersion: 1,
  key: ({ organizationId, jobId }) => ({ pk: `ORG#${organizationId}#BUILDS`, sk: `BLD#${jobId}` }),
});

/** Sort-key prefix of a build's draw slices. */
export const DRAW_SLICE_PREFIX = 'SLICE';

/** One slice of a build's draws, under the build's own partition, numbered from 0. */
export const drawSliceEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; buildId: string; index: number }>({
  type: 'build-draw-slice',
  schemaVersion: 1,
  key: ({ organizationId, buildId, index }) => ({ pk: `ORG#${organizationId}#BUILD#${buildId}`, sk: `${DRAW_SLICE_PREFIX}#${String(index).padStart(6, '0')}` }),
});

/**
 * The builds' index partitions: their own shards of the active-jobs index, written with the build
 * while it runs. A build is sent by its submit and has no dispatch partition.
 */
export const buildIndexKeys = {
  activeShard: (shard: number) => `ACTIVEBUILDS#${shard}`,
  active: (organizationId: string, buildId: string) => activeJobIndexKeys(buildIndexKeys.activeShard, organizationId, buildId),
};

/**
 * A build as the job store reads it (lib/platform/dynamo/job-store.ts): the build is its item's
 * `build`, read with the version its next step's checkpoint is conditioned on; it is finished once done.
 */
export const buildJobDeclaration: JobDeclaration<Build, StoredBuild> = {
  entity: buildEntity,
  index: buildIndexKeys,
  attribute: 'build',
  fromItem: (item) => ({ build: item.build as Build, version: item.version as number }),
  jobOf: (item) => item.build as Build | undefined,
  isFinished: (build) => build.progress.phase === 'done',
};
