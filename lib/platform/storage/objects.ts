/**
 * Where the files bucket keeps what (declarations only): each kind of object under its own
 * prefix, so that grants and lifecycle rules (infra/) are scoped to it.
 */

/** Every attachment body lives under this prefix of the files bucket, at a key the server makes. */
export const ATTACHMENT_OBJECT_PREFIX = 'attachments/';

/** Object keys of export files start with this (the worker may write nothing else; the lifecycle rule expires it). */
export const EXPORT_OBJECT_PREFIX = 'exports/';

/** Export files and jobs are kept this long after completion (S3 lifecycle on the prefix + DynamoDB TTL). */
export const EXPORT_RETENTION_DAYS = 7;
