/**
 * Structured JSON logs to stdout/stderr (CloudWatch picks them up). Never pass request headers
 * or bodies here: keys and customer data stay out of logs.
 *
 * Lives outside lib/http because the workers log too and must not depend on the HTTP chain.
 */
type Level = 'info' | 'warn' | 'error';

export function log(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  if (process.env.LOG_LEVEL === 'silent') return;
  const line = JSON.stringify({ level, message, time: new Date().toISOString(), ...fields });
  if (level === 'error') console.error(line);
  else console.log(line);
}

export function describeError(error: unknown): Record<string, unknown> {
  if (error instanceof Error) return { errorName: error.name, errorMessage: error.message, stack: error.stack };
  return { error: String(error) };
}
