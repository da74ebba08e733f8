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

  it.each(['', 'Dev', '1dev', '-dev', 'dev_1', 'dev.1', 'a123456789012345678901', 'dev ', 42, null])(
    'rejects %j',
    (stage) => {
      // Act
      const act = () => validateStageName(stage);

      // Assess
      expect(act).toThrow(/Invalid stage/);
    },
  );
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
    });
  });

  it('gives prod long retention, RETAIN and deletion protection', () => {
    // Act
    const config = resolveStageConfig(contextOf({ stage: 'prod' }));

    // Assess
    expect(config).toMatchObject({
      stage: 'prod',
      resourcePrefix: 'customer-api-prod',
      logRetention: RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.RETAIN,
      tableDeletionProtection: true,
    });
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
  ])('rejects %j', (context, message) => {
    // Act
    const act = () => resolveStageConfig(contextOf(context));

    // Assess
    expect(act).toThrow(message);
  });
});
