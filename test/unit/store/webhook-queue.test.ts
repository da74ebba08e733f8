import { createHash } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DeliveryMessage } from '../../../lib/webhooks/domain/ports.ts';
import { WebhookDeliveryQueue } from '../../../lib/webhooks/store/webhook-queue.ts';

// The webhook queue's SendMessageBatch (lib/webhooks/store/webhook-queue.ts): each entry names its
// organization as its message group, the tenant SQS fair queues balance (docs/webhooks.md "Fairness").

beforeAll(() => {
  vi.stubEnv('AWS_REGION', 'eu-west-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY');
  vi.stubEnv('AWS_ENDPOINT_URL_SQS', '');
});

afterEach(() => {
  vi.unstubAllGlobals();
});

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

describe('WebhookDeliveryQueue.send', () => {
  it('sends every message with its organization as the message group, ten to a batch', async () => {
    const batches: Array<Array<{ Id: string; MessageBody: string; DelaySeconds: number; MessageGroupId: string }>> = [];
    vi.stubGlobal('fetch', async (_url: URL, init: { body: string }) => {
      const { Entries } = JSON.parse(init.body) as { Entries: (typeof batches)[number] };
      batches.push(Entries);
      return new Response(
        JSON.stringify({ Successful: Entries.map((entry) => ({ Id: entry.Id, MessageId: `m-${entry.Id}`, MD5OfMessageBody: md5(entry.MessageBody) })) }),
        { status: 200, headers: { 'content-type': 'application/x-amz-json-1.0' } },
      );
    });
    const attempt = (organizationId: string, sequence: number): DeliveryMessage => ({
      kind: 'attempt',
      organizationId,
      endpointId: 'whe_1',
      sequence,
      origin: 'live',
      attempt: 1,
      dueAt: 0,
    });
    const messages = [
      ...Array.from({ length: 11 }, (_, index) => attempt('org_a', index + 1)),
      { kind: 'replay' as const, organizationId: 'org_b', replayId: 'whr_1', sentAt: 0 },
    ];
    await new WebhookDeliveryQueue('https://sqs.eu-west-1.amazonaws.com/123456789012/webhooks').send(messages.map((message) => ({ message, delaySeconds: 3 })));
    expect(batches.map((batch) => batch.length)).toEqual([10, 2]);
    expect(
      batches.flat().map((entry) => [entry.MessageGroupId, (JSON.parse(entry.MessageBody) as DeliveryMessage).organizationId, entry.DelaySeconds]),
    ).toEqual(messages.map((message) => [message.organizationId, message.organizationId, 3]));
  });
});
