import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { describe, expect, it } from 'vitest';
import { resolveStageConfig, stackNameFor, validateStageName } from '../../infra/stages.ts';

function contextOf(values: Record<string, unknown>): (key: string) => unknown {
  return (key) => values[key];
}

describe('validateStageName', () => {
  it.each(['dev', 'prod', 'pr-123', 'a', 'a12345678901234567890'])('accepts %s', (stage) => {
    // Act
    const result = validateStageName(stage);

    // Assess
    expect(result).toBe(stage);
  });

  it.each(['', 'Dev', '1dev', '-dev', 'dev_1', 'dev.1', 'a123456789012345678901', 'dev ', 42, null])('rejects %j', (stage) => {
    // Act
    const act = () => validateStageName(stage);

    // Assess
    expect(act).toThrow(/Invalid stage/);
  });
});

describe('stackNameFor', () => {
  it('names the stack CustomerApi-<stage>', () => {
    // Act
    const name = stackNameFor('prod');

    // Assess
    expect(name).toBe('CustomerApi-prod');
  });
});

describe('resolveStageConfig', () => {
  it('defaults to dev with its non-production profile', () => {
    // Act
    const config = resolveStageConfig(contextOf({}));

    // Assess
    expect(config).toEqual({
      stage: 'dev',
      resourcePrefix: 'customer-api-dev',
      generalRateLimitPerMinute: 1200,
      submissionRateLimitPerMinute: 20,
      logRetention: RetentionDays.TWO_WEEKS,
      removalPolicy: RemovalPolicy.DESTROY,
      tableDeletionProtection: false,
      apiThrottle: { rateLimit: 50, burstLimit: 100 },
      importWorkerReservedConcurrency: undefined,
      alarmTopicArn: undefined,
      logLevel: 'DEBUG',
      logSampleRate: 0,
      apiKeyCacheSeconds: 30,
      authFailureLimitPerMinute: 100,
    });
  });

  it.each([
    ['CLI strings', { apiKeyCacheSeconds: '0', authFailureLimit: '250' }, 0],
    ['numbers', { apiKeyCacheSeconds: 300, authFailureLimit: 250 }, 300],
  ])('applies the key cache and failed-authentication overrides given as %s', (_kind, overrides, seconds) => {
    // Act
    const config = resolveStageConfig(contextOf({ stage: 'prod', ...overrides }));

    // Assess
    expect(config).toMatchObject({ apiKeyCacheSeconds: seconds, authFailureLimitPerMinute: 250 });
  });

  it.each([
    [{ apiKeyCacheSeconds: '301' }, /apiKeyCacheSeconds.*0 to 300/],
    [{ apiKeyCacheSeconds: '-1' }, /apiKeyCacheSeconds/],
    [{ apiKeyCacheSeconds: '1.5' }, /apiKeyCacheSeconds/],
    [{ authFailureLimit: '0' }, /authFailureLimit/],
  ])('refuses %o', (overrides, message) => {
    expect(() => resolveStageConfig(contextOf({ stage: 'dev', ...overrides }))).toThrow(message);
  });

  it('gives prod long retention, RETAIN, deletion protection, a higher throttle and the import worker reservation', () => {
    // Act
    const config = resolveStageConfig(contextOf({ stage: 'prod' }));

    // Assess
    expect(config).toMatchObject({
      stage: 'prod',
      resourcePrefix: 'customer-api-prod',
      logRetention: RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.RETAIN,
      tableDeletionProtection: true,
      apiThrottle: { rateLimit: 500, burstLimit: 1000 },
      importWorkerReservedConcurrency: 4,
      alarmTopicArn: undefined,
      logLevel: 'INFO',
      logSampleRate: 0,
    });
  });

  it.each([
    ['CLI strings', { logLevel: 'warn', logSampleRate: '0.1' }],
    ['numbers', { logLevel: 'WARN', logSampleRate: 0.1 }],
  ])('applies log level and sampling overrides given as %s', (_kind, overrides) => {
    // Act
    const config = resolveStageConfig(contextOf({ stage: 'prod', ...overrides }));

    // Assess
    expect(config).toMatchObject({ logLevel: 'WARN', logSampleRate: 0.1 });
  });

  it('gives staging the import worker reservation and the non-production throttle', () => {
    // Act
    const config = resolveStageConfig(contextOf({ stage: 'staging' }));

    // Assess
    expect(config).toMatchObject({ apiThrottle: { rateLimit: 50, burstLimit: 100 }, importWorkerReservedConcurrency: 4 });
  });

  it.each([
    ['CLI strings', { apiThrottleRate: '20', apiThrottleBurst: '40', importWorkerReservedConcurrency: '6' }],
    ['numbers', { apiThrottleRate: 20, apiThrottleBurst: 40, importWorkerReservedConcurrency: 6 }],
  ])('applies throttling and concurrency overrides given as %s', (_kind, overrides) => {
    // Act
    const config = resolveStageConfig(contextOf({ stage: 'dev', ...overrides }));

    // Assess
    expect(config).toMatchObject({ apiThrottle: { rateLimit: 20, burstLimit: 40 }, importWorkerReservedConcurrency: 6 });
  });

  it("turns the import worker's reservation off with 'none'", () => {
    // Act
    const config = resolveStageConfig(contextOf({ stage: 'prod', importWorkerReservedConcurrency: 'none' }));

    // Assess
    expect(config.importWorkerReservedConcurrency).toBeUndefined();
  });

  it('takes an SNS topic for the alarms', () => {
    // Act
    const config = resolveStageConfig(contextOf({ alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:customer-api-alarms' }));

    // Assess
    expect(config.alarmTopicArn).toBe('arn:aws:sns:eu-west-1:123456789012:customer-api-alarms');
  });

  it('gives an unknown stage name the non-production profile', () => {
    // Act
    const config = resolveStageConfig(contextOf({ stage: 'pr-42' }));

    // Assess
    expect(config).toMatchObject({ stage: 'pr-42', removalPolicy: RemovalPolicy.DESTROY, logRetention: 14 });
  });

  it.each([
    ['CLI strings', { generalRateLimit: '300', submissionRateLimit: '5', logRetentionDays: '30' }],
    ['numbers', { generalRateLimit: 300, submissionRateLimit: 5, logRetentionDays: 30 }],
  ])('applies context overrides given as %s', (_kind, overrides) => {
    // Act
    const config = resolveStageConfig(contextOf({ stage: 'prod', ...overrides }));

    // Assess
    expect(config).toMatchObject({
      generalRateLimitPerMinute: 300,
      submissionRateLimitPerMinute: 5,
      logRetention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.RETAIN,
    });
  });

  it.each([
    [{ generalRateLimit: '0' }, /generalRateLimit.*positive integer/],
    [{ submissionRateLimit: '-1' }, /submissionRateLimit.*positive integer/],
    [{ generalRateLimit: '12.5' }, /positive integer/],
    [{ generalRateLimit: 'lots' }, /positive integer/],
    [{ logRetentionDays: '15' }, /logRetentionDays.*retention period/],
    [{ logRetentionDays: '9999' }, /retention period/],
    [{ stage: 'Prod' }, /Invalid stage/],
    [{ apiThrottleRate: '0' }, /apiThrottleRate.*positive integer/],
    [{ apiThrottleBurst: '10' }, /apiThrottleBurst.*\(10\) must be at least 'apiThrottleRate' \(50\)/],
    [{ importWorkerReservedConcurrency: '0' }, /importWorkerReservedConcurrency.*positive integer/],
    [{ importWorkerReservedConcurrency: 'all' }, /importWorkerReservedConcurrency.*positive integer/],
    [{ alarmTopicArn: 'ops-alarms' }, /alarmTopicArn.*SNS topic ARN/],
    [{ logLevel: 'verbose' }, /logLevel.*one of TRACE, DEBUG, INFO/],
    [{ logSampleRate: '1.5' }, /logSampleRate.*from 0 to 1/],
    [{ logSampleRate: 'some' }, /logSampleRate.*from 0 to 1/],
    [{ alarmTopicArn: 'arn:aws:sqs:eu-west-1:123456789012:queue' }, /SNS topic ARN/],
  ])('rejects %j', (context, message) => {
    // Act
    const act = () => resolveStageConfig(contextOf(context));

    // Assess
    expect(act).toThrow(message);
  });
});
