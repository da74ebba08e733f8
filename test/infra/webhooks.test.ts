import type { CfnElement } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { functionIdFor } from '../../infra/customer-api-stack.ts';
import { LOCAL_ONLY_WEBHOOK_SETTINGS } from '../../lib/platform/config/webhooks.ts';
import { RETRY_DELAYS_SECONDS } from '../../lib/webhooks/domain/retry-schedule.ts';
import { WEBHOOK_QUEUE } from '../../lib/platform/storage/tables.ts';
import { WORKERS } from '../../lib/app/workers.ts';
import { resourcesOfType, singleReference } from './template-helpers.ts';
import { stackSynthesizer, type Synthesized } from './synth.ts';

// The webhook flow on AWS (docs/webhooks.md "Operations"): the events table's stream, the
// dispatcher's event source mapping, the delivery queue's retention, and the local-only settings
// that no stage ever gets.

const synth = stackSynthesizer();

describe.each(['dev', 'prod'])('stage %s', (stage) => {
  let synthesized: Synthesized;

  beforeAll(() => {
    synthesized = synth({ stage });
  }, 120_000);

  it('never sets the local-only webhook settings (loopback endpoints, a short first retry, fixed DNS answers) on any function', () => {
    const functions = resourcesOfType(synthesized.template, 'AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThan(0);
    for (const [id, fn] of functions) {
      const variables = (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
      for (const name of LOCAL_ONLY_WEBHOOK_SETTINGS) expect(variables[name], `${id} ${name}`).toBeUndefined();
    }
    const template = JSON.stringify(synthesized.template.toJSON());
    for (const name of LOCAL_ONLY_WEBHOOK_SETTINGS) expect(template).not.toContain(name);
  });

  it('streams new images of the events table', () => {
    const eventsTable = synthesized.stack.getLogicalId(synthesized.stack.tables.events.node.defaultChild as CfnElement);
    const [, table] = resourcesOfType(synthesized.template, 'AWS::DynamoDB::Table').find(([id]) => id === eventsTable) ?? [];
    expect(table?.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_IMAGE' });
  });

  it('feeds the dispatcher from the stream: new event items only, bisecting failed batches, failures to the webhook dead-letter queue', () => {
    const dispatcher = WORKERS.find((worker) => worker.trigger === 'stream');
    if (dispatcher?.trigger !== 'stream') throw new Error('no stream worker');
    const fn = synthesized.stack.workerFunctions.get(dispatcher.id);
    const fnId = singleReference(synthesized.stack.resolve(fn?.function.functionName));
    const mappings = resourcesOfType(synthesized.template, 'AWS::Lambda::EventSourceMapping').filter(
      ([, mapping]) => singleReference(mapping.Properties.FunctionName) === fnId,
    );
    expect(mappings).toHaveLength(1);
    const properties = mappings[0]?.[1].Properties as Record<string, unknown>;
    expect(properties.BisectBatchOnFunctionError).toBe(true);
    expect(properties.MaximumRetryAttempts).toBe(dispatcher.maxRetries);
    expect(JSON.stringify(properties.DestinationConfig)).toContain(
      singleReference(synthesized.stack.resolve(synthesized.stack.workerQueues[WEBHOOK_QUEUE.id].deadLetterQueue.queueArn)),
    );
    expect(JSON.stringify(properties.FilterCriteria)).toContain('\\"INSERT\\"');
    expect(functionIdFor(dispatcher.id)).toBe('DispatchWebhookEventsFunction');
  });

  it('keeps delivery messages longer than the whole retry schedule', () => {
    const schedule = RETRY_DELAYS_SECONDS.reduce((sum, delay) => sum + delay * 1.2, 0);
    expect(WEBHOOK_QUEUE.messageRetentionDays * 86_400).toBeGreaterThan(schedule);
    const queueId = singleReference(synthesized.stack.resolve(synthesized.stack.workerQueues[WEBHOOK_QUEUE.id].queue.queueArn));
    const [, queue] = resourcesOfType(synthesized.template, 'AWS::SQS::Queue').find(([id]) => id === queueId) ?? [];
    expect(queue?.Properties.MessageRetentionPeriod).toBe(WEBHOOK_QUEUE.messageRetentionDays * 86_400);
  });

  it('alarms on the dispatcher falling behind and on failed attempts', () => {
    const names = resourcesOfType(synthesized.template, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties.AlarmName);
    expect(names).toContain(`customer-api-${stage}-dispatchWebhookEvents-iterator-age`);
    expect(names).toContain(`customer-api-${stage}-webhook-failed-attempts`);
    expect(names).toContain(`customer-api-${stage}-webhooks-dlq-not-empty`);
  });
});
