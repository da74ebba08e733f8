/**
 * The names under which logs and metrics are found (docs/operations.md "Logs",
 * docs/operations.md "Metrics"). Infra sets them on every function; the code falls back to them
 * where the environment has none (npm start, tests).
 */
export const SERVICE_NAME = 'customer-api';

/** One CloudWatch namespace per stage, so a dev stage's traffic never mixes into prod's graphs. */
export function metricsNamespaceFor(stage: string): string {
  return `CustomerApi/${stage}`;
}
