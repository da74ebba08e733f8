import { describe, expect, it } from 'vitest';
import {
  EMPTY_COUNTS,
  IMPORT_ABANDONED_AFTER_SECONDS,
  IMPORT_JOB_RETENTION_DAYS,
  isJobExpired,
  jobExpiresAtEpochSeconds,
  type ImportJobState,
} from '../../../lib/imports/domain/job.ts';
import { ImportReads, type ImportJobReader } from '../../../lib/imports/domain/read-imports.ts';

const submittedAt = '2026-01-01T00:00:00.000Z';
const expiry = new Date('2026-04-01T00:00:00.000Z'); // 90 days later

describe('import job retention', () => {
  it('expires 90 days after submission, in epoch seconds', () => {
    expect(IMPORT_JOB_RETENTION_DAYS).toBe(90);
    expect(jobExpiresAtEpochSeconds({ submittedAt })).toBe(expiry.getTime() / 1000);
  });

  it('is expired from the expiry instant on, not a millisecond before', () => {
    expect(isJobExpired({ submittedAt }, new Date(expiry.getTime() - 1))).toBe(false);
    expect(isJobExpired({ submittedAt }, expiry)).toBe(true);
  });

  it('outlives any job that can still be running', () => {
    expect(IMPORT_JOB_RETENTION_DAYS * 86_400).toBeGreaterThan(IMPORT_ABANDONED_AFTER_SECONDS * 2);
  });

  it('reads an expired job as not found, before TTL deletes it', async () => {
    // Prepare
    const job = { id: 'imp_1', organizationId: 'org_a', submittedAt, status: 'succeeded', counts: EMPTY_COUNTS, warnings: [] } as unknown as ImportJobState;
    const reader: ImportJobReader = { get: async () => job, listRowErrors: async () => ({ errors: [], more: false }) };
    const at = (now: Date) => new ImportReads(reader, undefined, () => now);

    // Act + Assess
    await expect(at(expiry).getJob('org_a', 'imp_1')).rejects.toMatchObject({ status: 404, code: 'customer-api.imports.not-found' });
    await expect(at(new Date(expiry.getTime() - 1)).getJob('org_a', 'imp_1')).resolves.toMatchObject({ id: 'imp_1' });
  });
});
