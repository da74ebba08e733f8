import { describe, expect, it } from 'vitest';
import { IMPORT_STALE_AFTER_SECONDS } from '../../../lib/domain/imports/job.ts';
import { IMPORT_QUEUE } from '../../../lib/store/tables.ts';

describe('IMPORT_STALE_AFTER_SECONDS', () => {
  it('outlasts every receive of a message, so a job still being retried is never failed as stalled', () => {
    expect(IMPORT_STALE_AFTER_SECONDS).toBeGreaterThan(IMPORT_QUEUE.maxReceiveCount * IMPORT_QUEUE.visibilityTimeoutSeconds);
  });
});
