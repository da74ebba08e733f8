// The imports area's stored kinds, declared once with their keys (docs/architecture.md "Storage: the entity layer"):
// no other module writes these key strings. Each is marked pure, so a function bundles only what its stores use.
import { defineEntity } from '../../platform/dynamo/entity.ts';
import { activeJobIndexKeys } from '../../platform/dynamo/active-jobs-index.ts';
import type { JobDeclaration } from '../../platform/dynamo/job-store.ts';
import { isFinished, type ImportJobState } from '../domain/job.ts';

/** A job's partition: the job item and its row errors. */
const importJobOf = (organizationId: string, jobId: string) => `ORG#${organizationId}#IMPJOB#${jobId}`;

/**
 * An import job. Its index keys follow its life (lib/platform/dynamo/job-store.ts): in gsi1's dispatch
 * partition until the queue has it, then in the active-jobs index until it finishes, then in neither.
 */
export const importJobEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; jobId: string }>({
  type: 'import-job',
  schemaVersion: 1,
  key: ({ organizationId, jobId }) => ({ pk: importJobOf(organizationId, jobId), sk: 'JOB' }),
});

/** Sparse index of jobs committed but not yet handed to the queue (for the sweeper). */
const PENDING_DISPATCH = 'IMPJOB#DISPATCH';

/**
 * The index partitions of import jobs: gsi1's dispatch partition, the flow's shards of the
 * sparse, keys-only active-jobs index (the sweeper fails those abandoned longer than the queue
 * keeps a message), and where gsi1 listed active jobs before the sharded index (the sweeper
 * still reads it until it is empty).
 */
export const importJobIndexKeys = {
  pendingPartition: PENDING_DISPATCH,
  pendingDispatch: (job: { organizationId: string; id: string; submittedAt: string }) => ({
    gsi1pk: PENDING_DISPATCH,
    gsi1sk: `${job.submittedAt}#${job.organizationId}#${job.id}`,
  }),
  activeShard: (shard: number) => `IMPJOB#ACTIVE#${String(shard).padStart(2, '0')}`,
  /** Its entry in the sharded, keys-only active-jobs index (lib/platform/dynamo/active-jobs-index.ts). */
  active: (organizationId: string, jobId: string) => activeJobIndexKeys(importJobIndexKeys.activeShard, organizationId, jobId),
  legacyActivePartition: 'IMPJOB#ACTIVE',
};

/** An import job as the job store reads it (lib/platform/dynamo/job-store.ts): the job is its item's `job`. */
export const importJobDeclaration: JobDeclaration<ImportJobState> = {
  entity: importJobEntity,
  index: importJobIndexKeys,
  attribute: 'job',
  fromItem: (item) => item.job as ImportJobState,
  jobOf: (item) => item.job as ImportJobState | undefined,
  isFinished: (job) => isFinished(job.status),
};

/** Sort-key prefix of a job's row errors. */
export const ROW_ERROR_PREFIX = 'ERR';
/** The partition of a job's row errors (its own). */
export const importRowErrorsOf = importJobOf;

/** Row errors sort by row, then by their order within the row. */
export const importRowErrorEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; jobId: string; rowNumber: number; index: number }>({
  type: 'import-row-error',
  schemaVersion: 1,
  key: ({ organizationId, jobId, rowNumber, index }) => ({
    pk: importJobOf(organizationId, jobId),
    sk: `${ROW_ERROR_PREFIX}#${String(rowNumber).padStart(9, '0')}#${String(index).padStart(3, '0')}`,
  }),
});
