import { randomUUID } from 'node:crypto';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryMessage } from '../../lib/webhooks/domain/ports.ts';
import { dynamoClient } from '../../lib/platform/aws/dynamodb-client.ts';
import { lambdaContext } from '../../local/lambda-event.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { registerEndpoints, tenantWithEvents } from '../support/webhook-delivery-harness.ts';

/**
 * A Lambda container runs one invocation at a time, so no write request of the delivery worker
 * can serve two invocations on AWS; the local runtime runs many through one imported handler, so
 * nothing at the handler's module scope may coalesce them either (docs/webhooks.md "Delivery"):
 * batchers are the invocation's own. Two invocations run here at once through the deployable
 * handler, each with the messages of one endpoint of the same organization (so a batcher keyed
 * by organization, as the gate's, would join them), and every DynamoDB write request this
 * process sends is read for the endpoints it names.
 */

const WRITES = new Set(['BatchWriteItem', 'BatchExecuteStatement', 'TransactWriteItems', 'UpdateItem', 'PutItem', 'DeleteItem']);
/** An endpoint's base share (lib/webhooks/domain/fair-share.ts): the gate admits every attempt of a fresh tenant's two endpoints at once. */
const MESSAGES_PER_INVOCATION = 3;

type Handler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

let receiver: Receiver;
let handler: Handler;
const writeRequests: string[] = [];
beforeAll(async () => {
  receiver = await startReceiver();
  dynamoClient.middlewareStack.add(
    (next, context) => async (args) => {
      if (WRITES.has(String(context.commandName ?? '').replace(/Command$/, ''))) writeRequests.push(JSON.stringify(args.input));
      return next(args);
    },
    { step: 'initialize', name: 'recordWriteRequests' },
  );
  // The worker's module scope reads its settings at import, as at a cold start.
  process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
  ({ handler } = (await import('../../functions/workers/deliver-webhooks.ts')) as unknown as { handler: Handler });
});
afterAll(async () => {
  dynamoClient.middlewareStack.remove('recordWriteRequests');
  await receiver.close();
});

function sqsEvent(messages: DeliveryMessage[]): SQSEvent {
  const now = String(Date.now());
  return {
    Records: messages.map((message) => ({
      messageId: randomUUID(),
      receiptHandle: randomUUID(),
      body: JSON.stringify(message),
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: now, SenderId: 'test', ApproximateFirstReceiveTimestamp: now },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:webhooks',
      awsRegion: 'us-east-1',
    })),
  };
}

describe('the delivery worker, two invocations at once', () => {
  it('never sends one DynamoDB write request for both: each invocation batches only its own messages', async () => {
    // Prepare: one organization, two endpoints; invocation A carries endpoint A's first attempts, B endpoint B's.
    const run = randomUUID().slice(0, 8);
    const tenant = await tenantWithEvents(2 * MESSAGES_PER_INVOCATION);
    const paths = [`/scope/${run}/a`, `/scope/${run}/b`];
    for (const path of paths) receiver.answer(path, { status: 204 });
    const [endpointA = '', endpointB = ''] = await registerEndpoints(tenant, receiver, paths);
    const messagesOf = (endpointId: string, from: number): DeliveryMessage[] =>
      tenant.events.slice(from, from + MESSAGES_PER_INVOCATION).map((event) => ({
        kind: 'attempt',
        organizationId: tenant.organizationId,
        endpointId,
        sequence: event.sequence,
        origin: 'live',
        attempt: 1,
        dueAt: Date.now(),
        event: { eventId: event.eventId, type: event.type, committedAt: event.committedAt },
      }));
    writeRequests.splice(0);

    // Act
    const responses = await Promise.all([
      handler(sqsEvent(messagesOf(endpointA, 0)), lambdaContext('deliverWebhooks', randomUUID(), 30_000)),
      handler(sqsEvent(messagesOf(endpointB, MESSAGES_PER_INVOCATION)), lambdaContext('deliverWebhooks', randomUUID(), 30_000)),
    ]);

    // Assess: every attempt delivered, and no write request names both invocations' endpoints
    expect(responses.map((response) => response.batchItemFailures)).toEqual([[], []]);
    expect(paths.map((path) => receiver.deliveries(path).length)).toEqual([MESSAGES_PER_INVOCATION, MESSAGES_PER_INVOCATION]);
    const ofBoth = writeRequests.filter((input) => input.includes(endpointA) && input.includes(endpointB));
    expect(writeRequests.length).toBeGreaterThan(0);
    expect(ofBoth, `write requests naming both invocations' endpoints:\n${ofBoth.map((input) => input.slice(0, 160)).join('\n')}`).toEqual([]);
  });
});
