import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import type { LogLevel } from '@aws-lambda-powertools/logger/types';
import { SERVICE_NAME } from '../config/observability.ts';

/**
 * Structured JSON logs through Powertools (docs/operations.md "Logs"). Never pass request headers
 * or bodies here: keys and customer data stay out of logs.
 *
 * Lives outside lib/http because the workers log too and must not depend on the HTTP chain.
 * Level, debug sampling and service come from the environment (POWERTOOLS_LOG_LEVEL, else
 * LOG_LEVEL; POWERTOOLS_LOGGER_SAMPLE_RATE; POWERTOOLS_SERVICE_NAME), read once per container.
 */
export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME || SERVICE_NAME,
  // Powertools matches a level from the environment case-sensitively, which would ignore the
  // `LOG_LEVEL=silent` of tests and local runs; its constructor option ignores case (and an
  // unknown name, which leaves the default INFO).
  logLevel: (process.env.POWERTOOLS_LOG_LEVEL || process.env.LOG_LEVEL || undefined) as LogLevel | undefined,
});

type Level = 'debug' | 'info' | 'warn' | 'error';

export function log(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  logger[level](message, fields);
}

/**
 * For handlers without Middy (the sweepers): what the `injectLambdaContext` middleware does before
 * an invocation, so their lines carry the function's context and debug sampling is drawn anew.
 */
export function startInvocation(context: Context | undefined): void {
  logger.refreshSampleRateCalculation();
  if (context) logger.addContext(context);
}

/** The error's name, message and stack: never its other properties, which may carry request data. */
export function describeError(error: unknown): Record<string, unknown> {
  if (error instanceof Error) return { errorName: error.name, errorMessage: error.message, stack: error.stack };
  return { error: String(error) };
}
