import { Duration } from 'aws-cdk-lib';
import type { LifecycleRule } from 'aws-cdk-lib/aws-s3';
import { EXPORT_OBJECT_PREFIX, EXPORT_RETENTION_DAYS } from '../lib/platform/storage/objects.ts';
import { IMPORT_QUEUE } from '../lib/platform/storage/tables.ts';
import { IMPORT_FILE_PREFIX } from './grants.ts';

/**
 * How long objects of the files bucket live (docs/operations.md#lifecycle).
 *
 * An import file is read only while its job runs. A job's message may wait in the import queue
 * for its whole retention (14 days) before a worker reads the file, and a job that hands itself
 * on sends a fresh message; 30 days leaves that wait and then some. A file submitted again is
 * written again, so its age starts over. Attachment bodies never expire: a record names them.
 */
export const IMPORT_FILE_EXPIRATION_DAYS = 30;

/** A multipart upload that neither completes nor aborts in a day is abandoned. */
export const INCOMPLETE_UPLOAD_ABORT_DAYS = 1;

export function filesBucketLifecycleRules(): LifecycleRule[] {
  if (IMPORT_FILE_EXPIRATION_DAYS <= IMPORT_QUEUE.messageRetentionDays) {
    throw new Error(
      `Import files expire after ${IMPORT_FILE_EXPIRATION_DAYS} days, within the ${IMPORT_QUEUE.messageRetentionDays} days a job may wait in the queue.`,
    );
  }
  return [
    { id: 'abort-incomplete-multipart-uploads', abortIncompleteMultipartUploadAfter: Duration.days(INCOMPLETE_UPLOAD_ABORT_DAYS) },
    { id: 'expire-import-files', prefix: IMPORT_FILE_PREFIX, expiration: Duration.days(IMPORT_FILE_EXPIRATION_DAYS) },
    // An export file is written once, at completion (its multipart upload completes), so its age
    // is the time since completion; the API answers 404 from the job's expiresAt on (docs/exports.md).
    { id: 'expire-export-files', prefix: EXPORT_OBJECT_PREFIX, expiration: Duration.days(EXPORT_RETENTION_DAYS) },
  ];
}

/** Server access logs are kept as long as the stage keeps its other logs. */
export function accessLogsLifecycleRules(retentionDays: number): LifecycleRule[] {
  return [
    { id: 'expire-access-logs', expiration: Duration.days(retentionDays) },
    { id: 'abort-incomplete-multipart-uploads', abortIncompleteMultipartUploadAfter: Duration.days(INCOMPLETE_UPLOAD_ABORT_DAYS) },
  ];
}
