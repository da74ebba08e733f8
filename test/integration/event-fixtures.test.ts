import type { APIGatewayProxyEventV2, SQSEvent } from 'aws-lambda';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { handler as renderBarcode } from '../../functions/http/labels/render-barcode.ts';
import { handler as processImportJobs } from '../../functions/workers/process-import-jobs.ts';
import { ROUTES } from '../../lib/app/routes.ts';
import { createTestKey } from '../support/api.ts';
import { lambdaContext } from '../../local/lambda-event.ts';
import { invocationContext } from '../../local/api-gateway-events.ts';

/**
 * The event fixtures in test/fixtures/events/ double as SAM events (`sam local invoke -e …`);
 * these tests keep them true by feeding them to the real handlers on the local stack.
 */

const fixture = <T>(name: string): T => JSON.parse(readFileSync(new URL(`../fixtures/events/${name}`, import.meta.url), 'utf8')) as T;

describe('event fixtures', () => {
  it('render-barcode.json names a real route and renders through the real handler', async () => {
    // Prepare
    const event = fixture<APIGatewayProxyEventV2>('render-barcode.json');
    expect(ROUTES.map((route) => `${route.method} ${route.path}`)).toContain(event.routeKey);
    const { key } = await createTestKey({ scopes: ['labels:read'] });
    event.headers.authorization = `Bearer ${key}`;
    // Act
    const response = await renderBarcode(event, invocationContext(event));
    // Assess
    expect(response.statusCode).toBe(200);
    expect(response.headers['Content-Type']).toBe('image/svg+xml');
    expect(String(response.body)).toMatch(/^<svg [^>]*width="30mm"/);
  });

  it('import-job-message.json is an SQS event the worker accepts (a job that does not exist is acknowledged)', async () => {
    // Prepare
    const event = fixture<SQSEvent>('import-job-message.json');
    // Act
    const response = await processImportJobs(event, lambdaContext('processImportJobs', 'fixture-import-job', 60_000));
    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
  });
});
