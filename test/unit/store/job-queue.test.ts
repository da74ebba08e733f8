import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createHash } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { JobQueue } from '../../../lib/platform/aws/job-queue.ts';

// The import queue's producers send with a signed request (lib/platform/aws/job-queue.ts), not the SQS
// client: the request must be the one the client sends (endpoint, target, body), and an answer
// whose MD5 does not match the body sent must fail as the client's check fails it.

const REGION = 'eu-west-1';
const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/import-jobs';
const MESSAGE = { organizationId: 'org_1', jobId: 'imp_1', handoffsWithoutProgress: 2 };

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

beforeAll(() => {
  vi.stubEnv('AWS_REGION', REGION);
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY');
});

afterEach(() => {
  vi.unstubAllGlobals();
});

const md5 = (text: string) => createHash('md5').update(text).digest('hex');
const answer = (md5OfBody: string) =>
  new Response(JSON.stringify({ MessageId: 'm-1', MD5OfMessageBody: md5OfBody }), { status: 200, headers: { 'content-type': 'application/x-amz-json-1.0' } });

/** What the SQS client sends for the same message, captured at its HTTP handler. */
async function clientRequest(endpoint: string | undefined): Promise<Sent> {
  let sent: Sent | undefined;
  const client = new SQSClient({
    region: REGION,
    ...(endpoint ? { endpoint } : {}),
    requestHandler: {
      handle: async (request: {
        protocol: string;
        hostname: string;
        port?: number;
        path: string;
        method: string;
        headers: Record<string, string>;
        body: string;
      }) => {
        sent = {
          url: `${request.protocol}//${request.hostname}${request.port ? `:${request.port}` : ''}${request.path}`,
          method: request.method,
          headers: request.headers,
          body: JSON.parse(request.body),
        };
        const response = answer(md5(JSON.stringify(MESSAGE)));
        return { response: { statusCode: 200, headers: { 'content-type': 'application/x-amz-json-1.0' }, body: Buffer.from(await response.text()) } };
      },
    },
  });
  await client.send(new SendMessageCommand({ QueueUrl: QUEUE_URL, MessageBody: JSON.stringify(MESSAGE), MessageGroupId: MESSAGE.organizationId }));
  if (!sent) throw new Error('the client sent nothing');
  return sent;
}

/** What JobQueue sends, captured at fetch. */
async function ourRequest(md5OfBody?: string): Promise<Sent> {
  let sent: Sent | undefined;
  vi.stubGlobal('fetch', async (url: URL, init: { method: string; headers: Record<string, string>; body: string }) => {
    sent = { url: url.href, method: init.method, headers: init.headers, body: JSON.parse(init.body) };
    return answer(md5OfBody ?? md5(JSON.stringify(MESSAGE)));
  });
  await new JobQueue(QUEUE_URL).send(MESSAGE);
  if (!sent) throw new Error('JobQueue sent nothing');
  return sent;
}

describe.each([
  { where: 'AWS (the queue URL’s host)', endpoint: undefined },
  { where: 'the local queue (AWS_ENDPOINT_URL_SQS)', endpoint: 'http://127.0.0.1:4576' },
])('JobQueue.send, $where', ({ endpoint }) => {
  it('sends the SendMessage request the SQS client sends', async () => {
    // Prepare
    if (endpoint) vi.stubEnv('AWS_ENDPOINT_URL_SQS', endpoint);
    else vi.stubEnv('AWS_ENDPOINT_URL_SQS', '');

    // Act
    const [theirs, ours] = [await clientRequest(endpoint), await ourRequest()];

    // Assess
    expect(new URL(ours.url).origin).toBe(new URL(theirs.url).origin);
    expect(new URL(ours.url).pathname).toBe(new URL(theirs.url).pathname);
    expect(ours.method).toBe(theirs.method);
    expect(ours.body).toEqual(theirs.body);
    expect(ours.headers['x-amz-target']).toBe(theirs.headers['x-amz-target']);
    expect(ours.headers['content-type']).toBe(theirs.headers['content-type']);
    expect(ours.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/sqs\/aws4_request, SignedHeaders=/);
  });
});

describe('JobQueue.send', () => {
  it('fails when SQS reports the MD5 of another body, as the client does', async () => {
    vi.stubEnv('AWS_ENDPOINT_URL_SQS', '');
    await expect(ourRequest(md5('something else'))).rejects.toThrow(/MD5/);
  });
});
