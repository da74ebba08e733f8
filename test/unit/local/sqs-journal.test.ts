import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
  SendMessageCommand,
  type Message,
} from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import { startSqs, type LocalSqs } from '../../../local/aws-stack/sqs.ts';

// The local queues' journal (local/aws-stack/sqs-journal.ts, docs/operations.md "Local runtime")
// on a real fauxqs, stopped and started again on the same state directory as `npm start` is.

const dirs: string[] = [];
const running: { sqs: LocalSqs; client: SQSClient }[] = [];

async function start(stateDir: string | undefined): Promise<SQSClient> {
  const sqs = await startSqs({ port: 0, ...(stateDir === undefined ? {} : { stateDir }) });
  const client = new SQSClient({ region: 'us-east-1', endpoint: sqs.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  running.push({ sqs, client });
  return client;
}

async function stop(): Promise<void> {
  for (const { sqs, client } of running.splice(0)) {
    client.destroy();
    await sqs.stop();
  }
}

/** A queue `work` with a DLQ after 2 receives, as provision.ts creates them on every start. */
async function queues(client: SQSClient): Promise<{ work: string; dead: string }> {
  const dead = (await client.send(new CreateQueueCommand({ QueueName: 'work-dlq' }))).QueueUrl as string;
  const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl: dead, AttributeNames: ['QueueArn'] }));
  const work = (
    await client.send(
      new CreateQueueCommand({
        QueueName: 'work',
        Attributes: { VisibilityTimeout: '300', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes?.QueueArn, maxReceiveCount: 2 }) },
      }),
    )
  ).QueueUrl as string;
  return { work, dead };
}

async function receive(client: SQSClient, queueUrl: string, max = 10): Promise<Message[]> {
  const { Messages } = await client.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: max, WaitTimeSeconds: 0, MessageSystemAttributeNames: ['ApproximateReceiveCount'] }),
  );
  return Messages ?? [];
}

function stateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sqs-journal-'));
  dirs.push(dir);
  return dir;
}

afterEach(async () => {
  await stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('local SQS with a state directory', () => {
  it('restores unsent, in-flight and never-deleted messages with their ids and receive counts, and not deleted ones', async () => {
    // Prepare
    const dir = stateDir();
    let client = await start(dir);
    let urls = await queues(client);
    for (const body of ['a', 'b', 'c']) await client.send(new SendMessageCommand({ QueueUrl: urls.work, MessageBody: body }));
    const firstReceive = await receive(client, urls.work, 2);
    const deleted = firstReceive.find((message) => message.Body === 'a') as Message;
    await client.send(new DeleteMessageCommand({ QueueUrl: urls.work, ReceiptHandle: deleted.ReceiptHandle }));
    const inFlightId = firstReceive.find((message) => message.Body === 'b')?.MessageId;

    // Act
    await stop();
    client = await start(dir);
    urls = await queues(client);
    const restored = await receive(client, urls.work);

    // Assess
    expect(restored.map((message) => message.Body).sort()).toEqual(['b', 'c']);
    const b = restored.find((message) => message.Body === 'b');
    expect(b?.MessageId).toBe(inFlightId);
    expect(b?.Attributes?.ApproximateReceiveCount).toBe('2');
    expect(restored.find((message) => message.Body === 'c')?.Attributes?.ApproximateReceiveCount).toBe('1');
  });

  it('counts receives across restarts, so a message that keeps failing still reaches the DLQ', async () => {
    // Prepare
    const dir = stateDir();
    let client = await start(dir);
    let urls = await queues(client);
    await client.send(new SendMessageCommand({ QueueUrl: urls.work, MessageBody: 'poison' }));
    expect(await receive(client, urls.work)).toHaveLength(1);
    await stop();
    client = await start(dir);
    urls = await queues(client);
    expect(await receive(client, urls.work)).toHaveLength(1);
    await stop();

    // Act
    client = await start(dir);
    urls = await queues(client);
    const third = await receive(client, urls.work);
    await stop();
    client = await start(dir);
    urls = await queues(client);
    const deadLetters = await receive(client, urls.dead);

    // Assess
    expect(third).toEqual([]);
    expect(deadLetters.map((message) => message.Body)).toEqual(['poison']);
  });

  it('keeps nothing without a state directory (LOCAL_IN_MEMORY=1)', async () => {
    // Prepare
    let client = await start(undefined);
    let urls = await queues(client);
    await client.send(new SendMessageCommand({ QueueUrl: urls.work, MessageBody: 'gone' }));

    // Act
    await stop();
    client = await start(undefined);
    urls = await queues(client);

    // Assess
    expect(await receive(client, urls.work)).toEqual([]);
  });
});
