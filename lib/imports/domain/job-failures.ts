import type { JobFailure } from './job.ts';

/** The import flow's words for the jobs it gives up on (lib/platform/jobs/sweep-jobs.ts, job-queue-handler.ts). */

export const DEAD_LETTER_FAILURE: JobFailure = {
  code: 'processing-error',
  message: 'The import could not be processed after repeated attempts and was stopped. Submit the file again, or contact support with the job id.',
};

export const ABANDONED_FAILURE: JobFailure = {
  code: 'processing-error',
  message: 'The import made no progress for longer than its queue keeps work and was stopped. Submit the file again, or contact support with the job id.',
};

export const IMPORT_SWEEP_FAILURES = { deadLetter: DEAD_LETTER_FAILURE, abandoned: ABANDONED_FAILURE };

/** A job whose message fails its last allowed receive. */
export const IMPORT_LAST_RECEIVE_FAILURE: JobFailure = {
  code: 'processing-error',
  message: 'The file could not be processed after several attempts. Submit it again, or contact support with the job id.',
};
