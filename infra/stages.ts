import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DEFAULT_API_KEY_CACHE_SECONDS, MAX_API_KEY_CACHE_SECONDS } from '../lib/platform/config/api-key-cache.ts';
import { DEFAULT_AUTH_FAILURE_LIMIT_PER_MINUTE } from '../lib/platform/config/auth-failures.ts';
import { WORKERS } from '../lib/app/workers.ts';

/**
 * Per-stage settings of the customer API stack. A stage is a name (`-c stage=<name>`, default
 * `dev`); `prod` and `staging` have their own profile, every other name (dev, pr-123, a
 * developer's sandbox) gets the non-production profile. Each setting can be overridden with
 * context: `-c generalRateLimit=… -c submissionRateLimit=… -c logRetentionDays=…
 * -c apiThrottleRate=… -c apiThrottleBurst=… -c importWorkerReservedConcurrency=…|none
 * -c alarmTopicArn=… -c logLevel=… -c logSampleRate=… -c apiKeyCacheSeconds=… -c authFailureLimit=…`
 * (docs/operations.md#throttling-and-concurrency, docs/operations.md#alarms-and-dashboard,
 * docs/operations.md#logs, docs/operations.md#api-key-cache).
 */

export const DEFAULT_STAGE = 'dev';
export const STAGE_NAME_PATTERN = /^[a-z][a-z0-9-]{0,20}$/;

/** Context keys read by the app (`cdk synth -c <key>=<value>`). */
export const CONTEXT_KEYS = {
  stage: 'stage',
  generalRateLimit: 'generalRateLimit',
  submissionRateLimit: 'submissionRateLimit',
  logRetentionDays: 'logRetentionDays',
  apiThrottleRate: 'apiThrottleRate',
  apiThrottleBurst: 'apiThrottleBurst',
  importWorkerReservedConcurrency: 'importWorkerReservedConcurrency',
  alarmTopicArn: 'alarmTopicArn',
  logLevel: 'logLevel',
  logSampleRate: 'logSampleRate',
  apiKeyCacheSeconds: 'apiKeyCacheSeconds',
  authFailureLimit: 'authFailureLimit',
} as const;

/** The levels the functions' logger takes (POWERTOOLS_LOG_LEVEL), most verbose first. */
export const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'] as const;
export type FunctionLogLevel = (typeof LOG_LEVELS)[number];

/** Context value that turns the import worker's reserved concurrency off. */
export const NO_RESERVATION = 'none';

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
  /**
   * API Gateway throttling of the stage's default route settings, for all clients together:
   * steady requests per second and burst (bucket size). Requests above it get 429 before any
   * Lambda runs (docs/operations.md#throttling-and-concurrency).
   */
  apiThrottle: { rateLimit: number; burstLimit: number };
  /**
   * Concurrency reserved for each queue worker (the import worker), or undefined for none. At
   * least the worker's `maxConcurrency`; it is taken from the account's unreserved pool.
   */
  importWorkerReservedConcurrency: number | undefined;
  /** Existing SNS topic that every alarm notifies (ALARM and OK), or undefined for no action. */
  alarmTopicArn: string | undefined;
  /** The functions' log level (docs/operations.md#logs). */
  logLevel: FunctionLogLevel;
  /** Share of invocations (0..1) that log at DEBUG whatever `logLevel` says. */
  logSampleRate: number;
  /** How long a container trusts a looked-up API key, in seconds (0..300); bounds revocation latency. */
  apiKeyCacheSeconds: number;
  /** Failed authentications per source address and minute before 429. */
  authFailureLimitPerMinute: number;
}

type StageProfile = Omit<StageConfig, 'stage' | 'resourcePrefix'>;

/**
 * The import worker's event source mapping runs at most this many invocations at once; a
 * reservation below it would make Lambda throttle the mapping, so production stages reserve it.
 */
const IMPORT_WORKER_MAX_CONCURRENCY: number | undefined = WORKERS.reduce<number | undefined>(
  (most, worker) => (worker.trigger === 'queue' && worker.queue === 'imports' ? Math.max(most ?? 0, worker.maxConcurrency) : most),
  undefined,
);

const NON_PRODUCTION: StageProfile = {
  generalRateLimitPerMinute: 1200,
  submissionRateLimitPerMinute: 20,
  logRetention: RetentionDays.TWO_WEEKS,
  removalPolicy: RemovalPolicy.DESTROY,
  tableDeletionProtection: false,
  apiThrottle: { rateLimit: 50, burstLimit: 100 },
  // Development stages share accounts, and a new account's concurrency quota (as low as 10)
  // leaves nothing to reserve: AWS keeps at least 100 (or the whole quota) unreserved.
  importWorkerReservedConcurrency: undefined,
  alarmTopicArn: undefined,
  // Development stages see little traffic and are where a change is first watched running.
  logLevel: 'DEBUG',
  logSampleRate: 0,
  apiKeyCacheSeconds: DEFAULT_API_KEY_CACHE_SECONDS,
  authFailureLimitPerMinute: DEFAULT_AUTH_FAILURE_LIMIT_PER_MINUTE,
};

const PROFILES: Readonly<Record<string, StageProfile>> = {
  dev: NON_PRODUCTION,
  staging: {
    ...NON_PRODUCTION,
    logRetention: RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.RETAIN,
    importWorkerReservedConcurrency: IMPORT_WORKER_MAX_CONCURRENCY,
    logLevel: 'INFO',
  },
  prod: {
    ...NON_PRODUCTION,
    logRetention: RetentionDays.THREE_MONTHS,
    removalPolicy: RemovalPolicy.RETAIN,
    tableDeletionProtection: true,
    apiThrottle: { rateLimit: 500, burstLimit: 1000 },
    importWorkerReservedConcurrency: IMPORT_WORKER_MAX_CONCURRENCY,
    logLevel: 'INFO',
  },
};

/** The finite retention periods CloudWatch Logs accepts (days); logs never keep forever here. */
const VALID_RETENTION_DAYS = new Set<number>(
  Object.values(RetentionDays).filter((value): value is number => typeof value === 'number' && value !== RetentionDays.INFINITE),
);

export function stackNameFor(stage: string): string {
  return `CustomerApi-${stage}`;
}

export function resourcePrefixFor(stage: string): string {
  return `customer-api-${stage}`;
}

export function validateStageName(stage: unknown): string {
  if (typeof stage !== 'string' || !STAGE_NAME_PATTERN.test(stage)) {
    throw new Error(`Invalid stage ${JSON.stringify(stage)}: expected ${STAGE_NAME_PATTERN.source} (lowercase letter, then up to 20 of a-z, 0-9, '-').`);
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

function reservedConcurrency(key: string, value: unknown): number | undefined {
  if (typeof value === 'string' && value.trim() === NO_RESERVATION) return undefined;
  return positiveInteger(key, value);
}

/** A burst below the steady rate would cap the rate at the burst: almost always swapped values. */
function throttle(rateLimit: number, burstLimit: number): StageConfig['apiThrottle'] {
  if (burstLimit < rateLimit) {
    throw new Error(`Context '${CONTEXT_KEYS.apiThrottleBurst}' (${burstLimit}) must be at least '${CONTEXT_KEYS.apiThrottleRate}' (${rateLimit}).`);
  }
  return { rateLimit, burstLimit };
}

/** An SNS topic ARN (any partition); alarms notify it. */
const SNS_TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/;

function topicArn(key: string, value: unknown): string {
  if (typeof value !== 'string' || !SNS_TOPIC_ARN.test(value.trim())) {
    throw new Error(`Context '${key}' must be an SNS topic ARN (arn:aws:sns:<region>:<account>:<name>), got ${JSON.stringify(value)}.`);
  }
  return value.trim();
}

function logLevel(key: string, value: unknown): FunctionLogLevel {
  const level = typeof value === 'string' ? value.trim().toUpperCase() : value;
  if (!LOG_LEVELS.includes(level as FunctionLogLevel)) {
    throw new Error(`Context '${key}' must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(value)}.`);
  }
  return level as FunctionLogLevel;
}

function sampleRate(key: string, value: unknown): number {
  const rate = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  if (!(rate >= 0 && rate <= 1)) throw new Error(`Context '${key}' must be a number from 0 to 1, got ${JSON.stringify(value)}.`);
  return rate;
}

function cacheSeconds(key: string, value: unknown): number {
  const seconds = typeof value === 'number' ? value : typeof value === 'string' && /^[0-9]+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!(Number.isInteger(seconds) && seconds >= 0 && seconds <= MAX_API_KEY_CACHE_SECONDS)) {
    throw new Error(`Context '${key}' must be a whole number of seconds from 0 to ${MAX_API_KEY_CACHE_SECONDS}, got ${JSON.stringify(value)}.`);
  }
  return seconds;
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
    submissionRateLimitPerMinute: override(CONTEXT_KEYS.submissionRateLimit, positiveInteger, profile.submissionRateLimitPerMinute),
    logRetention: override(CONTEXT_KEYS.logRetentionDays, retention, profile.logRetention),
    apiThrottle: throttle(
      override(CONTEXT_KEYS.apiThrottleRate, positiveInteger, profile.apiThrottle.rateLimit),
      override(CONTEXT_KEYS.apiThrottleBurst, positiveInteger, profile.apiThrottle.burstLimit),
    ),
    importWorkerReservedConcurrency: override(CONTEXT_KEYS.importWorkerReservedConcurrency, reservedConcurrency, profile.importWorkerReservedConcurrency),
    alarmTopicArn: override(CONTEXT_KEYS.alarmTopicArn, topicArn, profile.alarmTopicArn),
    logLevel: override(CONTEXT_KEYS.logLevel, logLevel, profile.logLevel),
    logSampleRate: override(CONTEXT_KEYS.logSampleRate, sampleRate, profile.logSampleRate),
    apiKeyCacheSeconds: override(CONTEXT_KEYS.apiKeyCacheSeconds, cacheSeconds, profile.apiKeyCacheSeconds),
    authFailureLimitPerMinute: override(CONTEXT_KEYS.authFailureLimit, positiveInteger, profile.authFailureLimitPerMinute),
  };
}
