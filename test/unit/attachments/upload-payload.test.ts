import { describe, expect, it } from 'vitest';
import { ATTACHMENT_MAX_BYTES } from '../../../lib/attachments/domain/attachment.ts';
import { ROUTES } from '../../../lib/app/routes.ts';
import { rawMultipart } from '../../support/imports.ts';
import { apiGatewayEvent } from '../../../local/api-gateway-events.ts';

/**
 * API Gateway hands a multipart body to Lambda base64-encoded, and a synchronous invocation takes
 * at most 6 MB (6,291,456 bytes) of request payload (docs/attachments.md "Files"). The largest
 * upload the route accepts must fit, headers and all.
 */
const LAMBDA_SYNC_PAYLOAD_LIMIT = 6 * 1024 * 1024;

describe('the largest upload', () => {
  it('fits in one API Gateway v2 event under the Lambda payload limit', () => {
    // Prepare: the biggest file the route takes, the longest allowed fields, long but realistic headers
    const route = ROUTES.find((candidate) => candidate.operationId === 'uploadAttachment');
    if (!route || route.requestBody?.mediaType !== 'multipart') throw new Error('uploadAttachment is a multipart route');
    const { maxFileBytes, maxFieldBytes } = route.requestBody.limits;
    const field = 'x'.repeat(maxFieldBytes);
    const { body, contentType } = rawMultipart([
      { name: 'TargetKind', value: field },
      { name: 'TargetId', value: field },
      { name: 'FileKind', value: field },
      { name: 'PageCount', value: field },
      { name: 'File', value: Buffer.alloc(maxFileBytes, 0xff), fileName: 'n'.repeat(255), contentType: 'application/octet-stream' },
    ]);
    const event = apiGatewayEvent(route, {
      headers: { 'content-type': contentType, 'idempotency-key': 'k'.repeat(255), authorization: `Bearer ${'a'.repeat(200)}`, 'user-agent': 'u'.repeat(500) },
    });

    // Act
    const payload = Buffer.byteLength(JSON.stringify({ ...event, body: body.toString('base64'), isBase64Encoded: true }));

    // Assess
    expect(maxFileBytes).toBe(ATTACHMENT_MAX_BYTES);
    expect(payload).toBeLessThan(LAMBDA_SYNC_PAYLOAD_LIMIT);
    expect(LAMBDA_SYNC_PAYLOAD_LIMIT - payload).toBeGreaterThan(100_000);
  });
});
