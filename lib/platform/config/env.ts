/**
 * Environment is read once, at cold start (module scope of whoever calls this): a missing
 * setting fails the cold start with a clear message instead of failing a request later.
 */
export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    throw new Error(`Missing required environment variable ${name}`);
  }
  return value;
}

export function optionalEnv(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}

export function positiveIntEnv(name: string, fallback: number): number {
  const raw = optionalEnv(name);
  if (raw === undefined) return fallback;
  if (!/^[1-9][0-9]*$/.test(raw)) throw new Error(`Environment variable ${name} must be a positive integer, got '${raw}'`);
  return Number(raw);
}
