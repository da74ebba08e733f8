import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { accessLogsLifecycleRules, filesBucketLifecycleRules } from './lifecycle.ts';
import type { StageConfig } from './stages.ts';

/**
 * The files bucket (import files and attachment bodies) and the bucket its S3 server access logs
 * go to (docs/operations.md#lifecycle). Both block public access, accept TLS only and encrypt
 * with S3-managed keys; neither is versioned (a deleted attachment is gone).
 */

/** Construct id of the files bucket, directly in the stack: its logical id must never change. */
export const FILES_BUCKET_ID = 'FilesBucket';
/** Access logs of the files bucket are written under this prefix of the access-log bucket. */
export const FILES_ACCESS_LOG_PREFIX = 'files-bucket/';

/** Delivers S3 access logs with a bucket policy for the logging service instead of an ACL. */
const ACCESS_LOGS_BY_BUCKET_POLICY = '@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy';

export function createFilesBuckets(stack: Construct, config: StageConfig): { files: Bucket; accessLogs: Bucket } {
  // ACLs are disabled (bucket owner enforced), so log delivery must be allowed by bucket policy;
  // the feature flag that makes CDK write that policy is read from the log bucket's scope.
  const accessLogScope = new Construct(stack, 'FilesAccessLogs');
  accessLogScope.node.setContext(ACCESS_LOGS_BY_BUCKET_POLICY, true);
  const accessLogs = new Bucket(accessLogScope, 'Bucket', {
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    enforceSSL: true,
    encryption: BucketEncryption.S3_MANAGED,
    versioned: false,
    lifecycleRules: accessLogsLifecycleRules(config.logRetention),
    removalPolicy: config.removalPolicy,
  });

  const files = new Bucket(stack, FILES_BUCKET_ID, {
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    enforceSSL: true,
    encryption: BucketEncryption.S3_MANAGED,
    versioned: false,
    lifecycleRules: filesBucketLifecycleRules(),
    serverAccessLogsBucket: accessLogs,
    serverAccessLogsPrefix: FILES_ACCESS_LOG_PREFIX,
    // No autoDeleteObjects (it adds a custom-resource Lambda): a DESTROY stage's buckets must be
    // emptied before the stack is deleted.
    removalPolicy: config.removalPolicy,
  });
  return { files, accessLogs };
}
