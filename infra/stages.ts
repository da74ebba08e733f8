import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';

/**
 * Per-stage settings of the customer API stack. A stage is a name (`-c stage=<name>`, default
 * `dev`); `prod` and `staging` have their own profile, every other name (dev, pr-123, a
 * developer's sandbox) gets the non-production profile. Each numeric setting can be overridden
 * with context: `-c generalRateLimit=… -c submissionRateLimit=… -c logRetentionDays=…`.
 */

export const DEFAULT_STAGE = 'dev';
export const STAGE_NAME_PATTERN = /^[a-z][a-z0-9-]{0,20}$/;

/** Context keys read by the app (`cdk synth -c <key>=<value>`). */
export const CONTEXT_KEYS = {
  stage: 'stage',
  generalRateLimit: 'generalRateLimit',
  submissionRateLimit: 'submissionRateLimit',
  logRetentionDays: 'logRetentionDays',
} as const;

export interface StageConfig {
  stage: string;
  /** Prefix of physical names, e.g. `customer-api-dev` → table `customer-api-dev-keys`. */
  resourcePrefix: string;
  /** Requests per API key per 60 s window, all routes. */
  generalRateLimitPerMinute: number;
  /** Requests per API key per 60 s window on submission routes (on top of the general limit). */
  submissionRateLimitPerMinute: number;
  /** Retention of every log group of the stage (function logs, API access logs). */
  logRetention: RetentionDays;
  /** What happens to stateful resources (tables, bucket, queues, log groups) when removed. */
  removalPolicy: RemovalPolicy;
  /** DynamoDB deletion protection on the tables. */
  tableDeletionProtection: boolean;
}

type StageProfile = Omit<StageConfig, 'stage' | 'resourcePrefix'>;

const NON_PRODUCTION: StageProfile = {
  generalRateLimitPerMinute: 1200,
  submissionRateLimitPerMinute: 20,
  logRetention: RetentionDays.TWO_WEEKS,
  removalPolicy: RemovalPolicy.DESTROY,
  tableDeletionProtection: false,
};

const PROFILES: Readonly<Record<string, StageProfile>> = {
  dev: NON_PRODUCTION,
  staging: { ...NON_PRODUCTION, logRetention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.RETAIN },
  prod: {
    ...NON_PRODUCTION,
    logRetention: RetentionDays.THREE_MONTHS,
    removalPolicy: RemovalPolicy.RETAIN,
    tableDeletionProtection: true,
  },
};

/** The finite retention periods CloudWatch Logs accepts (days); logs never keep forever here. */
const VALID_RETENTION_DAYS = new Set<number>(
  Object.values(RetentionDays).filter(
    (value): value is number => typeof value === 'number' && value !== RetentionDays.INFINITE,
  ),
);

export function stackNameFor(stage: string): string {
  return `CustomerApi-${stage}`;
}

export function resourcePrefixFor(stage: string): string {
  return `customer-api-${stage}`;
}

export function validateStageName(stage: unknown): string {
  if (typeof stage !== 'string' || !STAGE_NAME_PATTERN.test(stage)) {
    throw new Error(
      `Invalid stage ${JSON.stringify(stage)}: expected ${STAGE_NAME_PATTERN.source} (lowercase letter, then up to 20 of a-z, 0-9, '-').`,
    );
  }
  return stage;
}

/** Reads one context value; `undefined` when not set. */
export type ContextReader = (key: string) => unknown;

function positiveInteger(key: string, value: unknown): number {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^[1-9][0-9]{0,8}$/.test(text.trim())) {
    throw new Error(`Context '${key}' must be a positive integer, got ${JSON.stringify(value)}.`);
  }
  return Number(text.trim());
}

function retention(key: string, value: unknown): RetentionDays {
  const days = positiveInteger(key, value);
  if (!VALID_RETENTION_DAYS.has(days)) {
    throw new Error(
      `Context '${key}' must be a CloudWatch Logs retention period (${[...VALID_RETENTION_DAYS].sort((a, b) => a - b).join(', ')}), got ${days}.`,
    );
  }
  return days as RetentionDays;
}

/** The configuration of a stage: its profile, then any context overrides. */
export function resolveStageConfig(readContext: ContextReader): StageConfig {
  const stage = validateStageName(readContext(CONTEXT_KEYS.stage) ?? DEFAULT_STAGE);
  const profile = PROFILES[stage] ?? NON_PRODUCTION;
  const override = <T>(key: string, parse: (key: string, value: unknown) => T, fallback: T): T => {
    const value = readContext(key);
    return value === undefined || value === null || value === '' ? fallback : parse(key, value);
  };
  return {
    ...profile,
    stage,
    resourcePrefix: resourcePrefixFor(stage),
    generalRateLimitPerMinute: override(CONTEXT_KEYS.generalRateLimit, positiveInteger, profile.generalRateLimitPerMinute),
    submissionRateLimitPerMinute: override(
      CONTEXT_KEYS.submissionRateLimit,
      positiveInteger,
      profile.submissionRateLimitPerMinute,
    ),
    logRetention: override(CONTEXT_KEYS.logRetentionDays, retention, profile.logRetention),
  };
}
