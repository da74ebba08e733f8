import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALARM_THRESHOLDS } from '../../infra/observability.ts';
import { ROUTES } from '../../lib/app/routes.ts';
import { WORKERS } from '../../lib/app/workers.ts';
import { resourceById, resourcesOfType, singleReference } from './template-helpers.ts';
import { stackSynthesizer, type Synthesized } from './synth.ts';
import type { CfnResource } from './template-helpers.ts';

// The stage's alarms and dashboard (docs/operations.md#alarms-and-dashboard): one synth with an
// SNS topic for the alarms, one without.

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:customer-api-ops';
const ALARM_NAMES = [
  'api-5xx-rate',
  'api-throttled',
  'imports-dlq-not-empty',
  'exports-dlq-not-empty',
  'webhooks-dlq-not-empty',
  'worker-errors',
  'worker-errors-2',
  'builds-dlq-not-empty',
  'dispatchWebhookEvents-iterator-age',
  'webhook-failed-attempts',
].map((suffix) => `customer-api-obs-${suffix}`);

const synth = stackSynthesizer();

interface MetricQuery {
  Id: string;
  Expression?: string;
  ReturnData?: boolean;
  MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions?: { Name: string; Value: unknown }[] }; Period: number; Stat: string };
}

describe('alarms and dashboard (stage "obs", with an SNS topic)', () => {
  let synthesized: Synthesized;
  let template: Template;

  beforeAll(() => {
    // Prepare + Act
    synthesized = synth({ stage: 'obs', alarmTopicArn: TOPIC });
    template = synthesized.template;
  }, 120_000);

  function alarm(suffix: string): CfnResource {
    const found = resourcesOfType(template, 'AWS::CloudWatch::Alarm').filter(([, resource]) => resource.Properties.AlarmName === `customer-api-obs-${suffix}`);
    expect(found, suffix).toHaveLength(1);
    return (found[0] as [string, CfnResource])[1];
  }

  const queries = (resource: CfnResource) => resource.Properties.Metrics as MetricQuery[];
  const apiId = () => singleReference(synthesized.stack.resolve(synthesized.stack.httpApi.apiId));

  it('has exactly its alarms, each notifying the topic on ALARM and on OK', () => {
    // Act
    const alarms = resourcesOfType(template, 'AWS::CloudWatch::Alarm');

    // Assess
    expect(alarms.map(([, resource]) => resource.Properties.AlarmName).sort()).toEqual([...ALARM_NAMES].sort());
    for (const [, resource] of alarms) {
      expect(resource.Properties.AlarmActions, String(resource.Properties.AlarmName)).toEqual([TOPIC]);
      expect(resource.Properties.OKActions, String(resource.Properties.AlarmName)).toEqual([TOPIC]);
      expect(resource.Properties.TreatMissingData).toBe('notBreaching');
    }
  });

  it(`api-5xx-rate: 5xx above ${ALARM_THRESHOLDS.api5xxPercent}% of the stage's requests in 5 minutes, from ${ALARM_THRESHOLDS.api5xxMinimumRequests} requests on`, () => {
    // Act
    const resource = alarm('api-5xx-rate');
    const metrics = queries(resource);

    // Assess
    expect(resource.Properties).toMatchObject({ Threshold: 5, ComparisonOperator: 'GreaterThanThreshold', EvaluationPeriods: 1 });
    expect(metrics.find((query) => query.ReturnData !== false)?.Expression).toBe('IF(requests >= 20, 100 * FILL(errors, 0) / requests, 0)');
    const stageDimensions = [
      { Name: 'ApiId', Value: { Ref: apiId() } },
      { Name: 'Stage', Value: '$default' },
    ];
    expect(metrics.find((query) => query.Id === 'requests')?.MetricStat).toEqual({
      Metric: { Namespace: 'AWS/ApiGateway', MetricName: 'Count', Dimensions: stageDimensions },
      Period: 300,
      Stat: 'Sum',
    });
    expect(metrics.find((query) => query.Id === 'errors')?.MetricStat).toEqual({
      Metric: { Namespace: 'AWS/ApiGateway', MetricName: '5xx', Dimensions: stageDimensions },
      Period: 300,
      Stat: 'Sum',
    });
  });

  it('api-throttled: 100 or more 429 responses in 5 minutes, counted by a metric filter on the access logs', () => {
    // Prepare
    const accessLogsId = singleReference(synthesized.stack.resolve(synthesized.stack.apiAccessLogs.logGroupName));

    // Act
    const resource = alarm('api-throttled');
    const filters = resourcesOfType(template, 'AWS::Logs::MetricFilter');

    // Assess
    expect(resource.Properties).toMatchObject({ Threshold: 100, ComparisonOperator: 'GreaterThanOrEqualToThreshold', EvaluationPeriods: 1 });
    expect(queries(resource)[0]?.MetricStat).toEqual({
      Metric: { Namespace: 'customer-api-obs', MetricName: 'ThrottledRequests' },
      Period: 300,
      Stat: 'Sum',
    });
    expect(filters).toHaveLength(1);
    expect(filters[0]?.[1].Properties).toEqual({
      LogGroupName: { Ref: accessLogsId },
      FilterPattern: '{ $.status = "429" }',
      MetricTransformations: [{ MetricNamespace: 'customer-api-obs', MetricName: 'ThrottledRequests', MetricValue: '1' }],
    });
  });

  it('the access log records the status as a JSON field the filter can read', () => {
    // Act
    const stages = resourcesOfType(template, 'AWS::ApiGatewayV2::Stage');

    // Assess
    const format = JSON.parse((stages[0]?.[1].Properties.AccessLogSettings as { Format: string }).Format) as Record<string, string>;
    expect(format.status).toBe('$context.status');
    expect(format.routeKey).toBe('$context.routeKey');
  });

  it('imports-dlq-not-empty: any message visible on the import DLQ (1-minute maximum)', () => {
    // Prepare
    const dlqId = singleReference(synthesized.stack.resolve(synthesized.stack.importDeadLetterQueue.queueArn));

    // Act
    const resource = alarm('imports-dlq-not-empty');

    // Assess
    expect(resource.Properties).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }],
      Statistic: 'Maximum',
      Period: 60,
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 1,
    });
  });

  it('worker-errors: the Errors of every worker, summed, in 2 of the last 3 five-minute periods', () => {
    // Prepare
    const workerIds = [...synthesized.stack.workerFunctions.values()].map((fn) => singleReference(synthesized.stack.resolve(fn.function.functionName)));

    // Act
    const resources = [alarm('worker-errors'), alarm('worker-errors-2')];
    const metrics = resources.flatMap((resource) => queries(resource).filter((query) => query.MetricStat));

    // Assess: every worker watched once, at most 10 per alarm (CloudWatch's limit for metric math)
    for (const resource of resources)
      expect(resource.Properties).toMatchObject({
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 3,
        DatapointsToAlarm: 2,
      });
    expect(metrics.map((query) => singleReference(query.MetricStat?.Metric.Dimensions?.[0]?.Value)).sort()).toEqual([...workerIds].sort());
    for (const query of metrics)
      expect(query.MetricStat).toMatchObject({ Metric: { Namespace: 'AWS/Lambda', MetricName: 'Errors' }, Period: 300, Stat: 'Sum' });
    expect(queries(resources[0]!).find((query) => query.Expression)?.Expression).toBe(
      WORKERS.slice(0, 10)
        .map((_, index) => `FILL(w${index}, 0)`)
        .join(' + '),
    );
    expect(queries(resources[1]!).filter((query) => query.MetricStat)).toHaveLength(WORKERS.length - 10);
  });

  it('one dashboard named after the stage: alarms, API traffic and latency, per-route duration and errors, queue, workers and webhooks', () => {
    // Act
    const dashboards = resourcesOfType(template, 'AWS::CloudWatch::Dashboard');

    // Assess
    expect(dashboards).toHaveLength(1);
    const dashboard = dashboards[0]?.[1] as CfnResource;
    expect(dashboard.Properties.DashboardName).toBe('customer-api-obs');
    const body = JSON.stringify(synthesized.stack.resolve(dashboard.Properties.DashboardBody));
    for (const title of [
      'Alarms',
      'API requests and errors',
      'API latency (ms)',
      'Routes: duration p95 (ms)',
      'Routes: Lambda errors and throttles',
      'Routes: 5xx responses (access logs)',
      'Import queue',
      'Workers: errors, throttles, concurrency',
      'Webhooks: attempts by outcome',
      'Webhooks: commit to first attempt (ms), dispatcher lag',
    ]) {
      expect(body, title).toContain(`\\"title\\":\\"${title}\\"`);
    }
    for (const route of ROUTES) expect(body, route.operationId).toContain(`\\"label\\":\\"${route.operationId}\\"`);
    for (const metric of ['WebhookAttempts', 'WebhookCommitToFirstAttempt', 'IteratorAge']) expect(body, metric).toContain(`\\"${metric}\\"`);
  });

  it("the dashboard's alarm widget shows all its alarms", () => {
    // Act
    const dashboard = resourcesOfType(template, 'AWS::CloudWatch::Dashboard')[0]?.[1] as CfnResource;
    const alarmIds = resourcesOfType(template, 'AWS::CloudWatch::Alarm').map(([id]) => id);

    // Assess
    const referenced = JSON.stringify(dashboard.Properties.DashboardBody);
    for (const id of alarmIds) expect(referenced).toContain(`"${id}"`);
    expect(resourceById(template, alarmIds[0] as string).Type).toBe('AWS::CloudWatch::Alarm');
  });
});

describe('alarms without a topic (stage "quiet")', () => {
  let template: Template;

  beforeAll(() => {
    // Prepare + Act
    template = synth({ stage: 'quiet' }).template;
  }, 120_000);

  it('exist without actions', () => {
    // Act
    const alarms = resourcesOfType(template, 'AWS::CloudWatch::Alarm');

    // Assess
    expect(alarms).toHaveLength(ALARM_NAMES.length);
    for (const [, resource] of alarms) {
      expect(resource.Properties.AlarmActions).toBeUndefined();
      expect(resource.Properties.OKActions).toBeUndefined();
    }
  });
});
