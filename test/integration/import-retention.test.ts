import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler } from '../../functions/workers/process-import-jobs.ts';
import { IMPORT_JOB_RETENTION_DAYS, jobExpiresAtEpochSeconds } from '../../lib/imports/domain/job.ts';
import { documentClient } from '../../lib/platform/aws/dynamodb-client.ts';
import { importJobEntity, importRowErrorsOf, ROW_ERROR_PREFIX } from '../../lib/imports/store/entities.ts';
import { callApi, createTestKey } from '../support/api.ts';
import { tableName } from '../support/events.ts';
import { commitQueuedJob, csvOf, jobMessage, sqsEvent, sqsRecord, storedJob, workerContext } from '../support/imports.ts';

// docs/imports.md "Retention": a job and its row errors expire together, IMPORT_JOB_RETENTION_DAYS
// after submission; DynamoDB TTL deletes them, and reads treat the job as gone from the expiry on.

const DAY_MS = 86_400_000;

async function processed(organizationId: string, jobId: string) {
  await handler(sqsEvent(sqsRecord(jobMessage(organizationId, jobId))), workerContext());
  return storedJob(organizationId, jobId);
}

describe('import job retention', () => {
  it('stamps the job and every row error with the same expiry, 90 days after submission', async () => {
    // Prepare
    const { key, record } = await createTestKey();
    const file = csvOf(
      ['sku', 'name', 'unit'],
      [
        ['RET-1', 'Kept', 'ea'],
        ['', 'No sku', 'ea'],
        ['RET-3', '', 'ea'],
      ],
    );
    const { job } = await commitQueuedJob(record.organizationId, { file });

    // Act
    const finished = await processed(record.organizationId, job.id);
    const jobItem = await documentClient.send(
      new GetCommand({ TableName: tableName('inventory'), Key: importJobEntity.key({ organizationId: record.organizationId, jobId: job.id }) }),
    );
    const errorItems = await documentClient.send(
      new QueryCommand({
        TableName: tableName('inventory'),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :errors)',
        ExpressionAttributeValues: { ':pk': importRowErrorsOf(record.organizationId, job.id), ':errors': ROW_ERROR_PREFIX },
      }),
    );

    // Assess
    const expiry = Math.floor(Date.parse(job.submittedAt) / 1000) + IMPORT_JOB_RETENTION_DAYS * 86_400;
    expect(jobExpiresAtEpochSeconds(job)).toBe(expiry);
    expect(finished.counts.failed).toBe(2);
    expect(jobItem.Item?.ttl).toBe(expiry);
    expect(errorItems.Items?.length).toBe(2);
    for (const item of errorItems.Items ?? []) expect(item.ttl).toBe(expiry);
    const listed = await callApi(`/v1/imports/jobs/${job.id}/errors`, { key });
    expect(listed.status).toBe(200);
  });

  it('answers 404 for a job past its retention, and for its row errors, before TTL has deleted them', async () => {
    // Prepare
    const { key, record } = await createTestKey();
    const submittedAt = new Date(Date.now() - (IMPORT_JOB_RETENTION_DAYS * DAY_MS + 60_000));
    const { job } = await commitQueuedJob(record.organizationId, { file: csvOf(['sku', 'name', 'unit'], [['', 'x', 'ea']]), submittedAt });
    await processed(record.organizationId, job.id);

    // Act
    const jobResponse = await callApi(`/v1/imports/jobs/${job.id}`, { key });
    const errorsResponse = await callApi(`/v1/imports/jobs/${job.id}/errors`, { key });

    // Assess
    expect(jobResponse.status).toBe(404);
    expect(errorsResponse.status).toBe(404);
    expect(((await jobResponse.json()) as { code: string }).code).toBe('customer-api.imports.not-found');
  });

  it('still answers for a job a minute before its expiry', async () => {
    const { key, record } = await createTestKey();
    const submittedAt = new Date(Date.now() - (IMPORT_JOB_RETENTION_DAYS * DAY_MS - 60_000));
    const { job } = await commitQueuedJob(record.organizationId, { file: csvOf(['sku', 'name', 'unit'], [['RET-OK', 'x', 'ea']]), submittedAt });
    const response = await callApi(`/v1/imports/jobs/${job.id}`, { key });
    expect(response.status).toBe(200);
  });
});
