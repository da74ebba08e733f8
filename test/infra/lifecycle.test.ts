import { rmSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomerApiStack } from '../../infra/customer-api-stack.ts';
import type { CustomerApiStack } from '../../infra/customer-api-stack.ts';
import { FILES_ACCESS_LOG_PREFIX } from '../../infra/files-bucket.ts';
import { IMPORT_FILE_PREFIX } from '../../infra/grants.ts';
import { IMPORT_FILE_EXPIRATION_DAYS, INCOMPLETE_UPLOAD_ABORT_DAYS } from '../../infra/lifecycle.ts';
import { ATTACHMENT_OBJECT_PREFIX } from '../../lib/attachments/domain/attachment.ts';
import { EXPORT_OBJECT_PREFIX, EXPORT_RETENTION_DAYS } from '../../lib/exports/domain/job.ts';
import { IMPORT_QUEUE } from '../../lib/platform/storage/tables.ts';
import { CDK_JSON_CONTEXT, logicalIdOfType, referencedLogicalIds, resourceById, singleReference } from './template-helpers.ts';

// How long objects live in the files bucket, and where its access logs go (docs/operations.md#lifecycle).

describe('files bucket lifecycle (stage "life")', () => {
  let app: App;
  let stack: CustomerApiStack;
  let template: Template;

  beforeAll(() => {
    // Prepare + Act
    app = new App({ context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [], stage: 'life', logRetentionDays: '30' } });
    stack = createCustomerApiStack(app);
    template = Template.fromStack(stack);
  }, 120_000);

  afterAll(() => {
    rmSync(app.outdir, { recursive: true, force: true });
  });

  const filesBucketId = () => singleReference(stack.resolve(stack.filesBucket.bucketArn));
  const accessLogsBucketId = () => singleReference(stack.resolve(stack.accessLogsBucket.bucketArn));

  it(`expires import files ${IMPORT_FILE_EXPIRATION_DAYS} days and export files ${EXPORT_RETENTION_DAYS} days after they were written, and nothing else`, () => {
    // Act
    const rules = (resourceById(template, filesBucketId()).Properties.LifecycleConfiguration as { Rules: Record<string, unknown>[] }).Rules;

    // Assess
    const expiring = rules.filter((rule) => rule.ExpirationInDays !== undefined);
    expect(expiring).toEqual([
      { Id: 'expire-import-files', Prefix: IMPORT_FILE_PREFIX, ExpirationInDays: IMPORT_FILE_EXPIRATION_DAYS, Status: 'Enabled' },
      { Id: 'expire-export-files', Prefix: EXPORT_OBJECT_PREFIX, ExpirationInDays: EXPORT_RETENTION_DAYS, Status: 'Enabled' },
    ]);
    expect(ATTACHMENT_OBJECT_PREFIX.startsWith(IMPORT_FILE_PREFIX)).toBe(false);
    expect(ATTACHMENT_OBJECT_PREFIX.startsWith(EXPORT_OBJECT_PREFIX)).toBe(false);
  });

  it(`aborts multipart uploads left incomplete for ${INCOMPLETE_UPLOAD_ABORT_DAYS} day, bucket-wide`, () => {
    // Act
    const rules = (resourceById(template, filesBucketId()).Properties.LifecycleConfiguration as { Rules: Record<string, unknown>[] }).Rules;

    // Assess
    expect(rules).toContainEqual({
      Id: 'abort-incomplete-multipart-uploads',
      AbortIncompleteMultipartUpload: { DaysAfterInitiation: INCOMPLETE_UPLOAD_ABORT_DAYS },
      Status: 'Enabled',
    });
  });

  it('keeps an import file longer than its job can wait in the queue', () => {
    // Assess
    expect(IMPORT_FILE_EXPIRATION_DAYS).toBeGreaterThan(IMPORT_QUEUE.messageRetentionDays);
  });

  it("writes the files bucket's server access logs to the access-log bucket, which keeps them as long as the stage's logs", () => {
    // Act
    const files = resourceById(template, filesBucketId());
    const accessLogs = resourceById(template, accessLogsBucketId());

    // Assess
    expect(files.Properties.LoggingConfiguration).toEqual({ DestinationBucketName: { Ref: accessLogsBucketId() }, LogFilePrefix: FILES_ACCESS_LOG_PREFIX });
    expect(accessLogs.Properties).toMatchObject({
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      LifecycleConfiguration: { Rules: expect.arrayContaining([{ Id: 'expire-access-logs', ExpirationInDays: 30, Status: 'Enabled' }]) },
    });
    expect(accessLogs.DeletionPolicy).toBe('Delete');
  });

  it('lets only the S3 logging service of this account, for the files bucket, write logs; TLS only', () => {
    // Act
    const policyId = logicalIdOfType(template, 'AWS::S3::BucketPolicy', (policy) => referencedLogicalIds(policy.Properties.Bucket).has(accessLogsBucketId()));
    const statements = (resourceById(template, policyId).Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement;

    // Assess
    expect(statements).toContainEqual(expect.objectContaining({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
    expect(statements).toContainEqual({
      Effect: 'Allow',
      Principal: { Service: 'logging.s3.amazonaws.com' },
      Action: 's3:PutObject',
      Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [accessLogsBucketId(), 'Arn'] }, `/${FILES_ACCESS_LOG_PREFIX}*`]] },
      Condition: {
        ArnLike: { 'aws:SourceArn': { 'Fn::GetAtt': [filesBucketId(), 'Arn'] } },
        StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
      },
    });
    expect(statements.filter((statement) => statement.Effect === 'Allow')).toHaveLength(1);
  });
});
