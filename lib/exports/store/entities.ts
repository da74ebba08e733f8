// The exports area's stored kinds, declared once with their keys (docs/architecture.md "Storage: the entity layer"):
// no other module writes these key strings. Each is marked pure, so a function bundles only what its stores use.
import { defineEntity } from '../../platform/dynamo/entity.ts';
import { activeJobIndexKeys } from '../../platform/dynamo/active-jobs-index.ts';
import type { JobDeclaration } from '../../platform/dynamo/job-store.ts';
import { isExportFinished, type ExportJobState } from '../domain/job.ts';

/** An export job (docs/exports.md); its index keys follow its life as an import job's do (lib/platform/dynamo/job-store.ts). */
export const exportJobEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; jobId: string }>({
  type: 'export-job',
  schemaVersion: 1,
  key: ({ organizationId, jobId }) => ({ pk: `ORG#${organizationId}#EXPJOB#${jobId}`, sk: 'JOB' }),
});

/** Sparse index of export jobs committed but not yet handed to their queue (the sweeper's). */
const PENDING_DISPATCH = 'EXPJOB#DISPATCH';

/**
 * The index partitions of export jobs, as import jobs': gsi1's dispatch partition, the flow's own
 * shards of the active-jobs index, and gsi1's partition of jobs dispatched before the sharded
 * index (the sweeper still reads it until it is empty).
 */
export const exportJobIndexKeys = {
  pendingPartition: PENDING_DISPATCH,
  pendingDispatch: (job: { organizationId: string; id: string; submittedAt: string }) => ({
    gsi1pk: PENDING_DISPATCH,
    gsi1sk: `${job.submittedAt}#${job.organizationId}#${job.id}`,
  }),
  activeShard: (shard: number) => `EXPJOB#ACTIVE#${String(shard).padStart(2, '0')}`,
  /** Its entry in the active-jobs index, in the export flow's own shards (lib/platform/dynamo/active-jobs-index.ts). */
  active: (organizationId: string, jobId: string) => activeJobIndexKeys(exportJobIndexKeys.activeShard, organizationId, jobId),
  legacyActivePartition: 'EXPJOB#ACTIVE',
};

/** An export job as the job store reads it (lib/platform/dynamo/job-store.ts): the job is its item's `job`. */
export const exportJobDeclaration: JobDeclaration<ExportJobState> = {
  entity: exportJobEntity,
  index: exportJobIndexKeys,
  attribute: 'job',
  fromItem: (item) => item.job as ExportJobState,
  jobOf: (item) => item.job as ExportJobState | undefined,
  isFinished: (job) => isExportFinished(job.status),
};

/** The organization's running exports, one slot each (docs/exports.md "Fairness"). */
export const exportSlotsEntity = /* @__PURE__ */ defineEntity<{ organizationId: string }>({
  type: 'export-slots',
  schemaVersion: 1,
  key: ({ organizationId }) => ({ pk: `ORG#${organizationId}#EXPSLOTS`, sk: 'SLOTS' }),
});
