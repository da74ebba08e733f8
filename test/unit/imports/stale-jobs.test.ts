import { describe, expect, it } from 'vitest';
import { IMPORT_ABANDONED_AFTER_SECONDS } from '../../../lib/imports/domain/job.ts';
import { IMPORT_QUEUE } from '../../../lib/platform/storage/tables.ts';

describe('IMPORT_ABANDONED_AFTER_SECONDS', () => {
  it('outlasts the life of a message in the queue, so a job waiting in any backlog is never failed for it', () => {
    expect(IMPORT_ABANDONED_AFTER_SECONDS).toBeGreaterThan(IMPORT_QUEUE.messageRetentionDays * 86_400);
  });

  it('is the queue retention SQS allows at most (14 days)', () => {
    expect(IMPORT_QUEUE.messageRetentionDays).toBe(14);
  });
});
