import type { createInventoryClient, InventoryClient } from '../create-client.ts';

/** What a command gets from the entry point; tests build one around in-memory streams. */
export interface CliContext {
  env: Record<string, string | undefined>;
  stdout: { write(text: string | Uint8Array): unknown };
  stderr: { write(text: string): unknown };
  /** stderr is a terminal: draw a progress bar there instead of printing plain lines (docs/client.md#cli). */
  interactive: boolean;
  /** Aborted by Ctrl-C. */
  signal: AbortSignal;
  createClient: typeof createInventoryClient;
}

/** A mistake in the command line: the message and the usage, exit status 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const GLOBAL_OPTIONS = {
  url: { type: 'string' },
  key: { type: 'string' },
  'max-attempts': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface GlobalValues {
  url?: string;
  key?: string;
  'max-attempts'?: string;
}

/** The client for the flags, else INVENTORY_API_URL / INVENTORY_API_KEY; retries are reported on stderr. */
export function clientFor(values: GlobalValues, context: CliContext): InventoryClient {
  const baseUrl = values.url ?? context.env.INVENTORY_API_URL;
  const apiKey = values.key ?? context.env.INVENTORY_API_KEY;
  if (!baseUrl) throw new UsageError('No API URL: pass --url or set INVENTORY_API_URL (e.g. http://127.0.0.1:3000).');
  if (!apiKey) throw new UsageError('No API key: pass --key or set INVENTORY_API_KEY.');
  const maxAttempts = values['max-attempts'] === undefined ? undefined : positiveInteger('--max-attempts', values['max-attempts']);
  return context.createClient({
    baseUrl,
    apiKey,
    retry: maxAttempts === undefined ? {} : { maxAttempts },
    onRetry: (event) =>
      context.stderr.write(
        `${event.method} ${new URL(event.url).pathname}: ${event.reason} (${event.status ?? 'no answer'}); retrying in ${(event.delayMs / 1000).toFixed(1)} s\n`,
      ),
  });
}

export function positiveInteger(flag: string, value: string): number {
  if (!/^[1-9][0-9]*$/.test(value)) throw new UsageError(`${flag} must be a positive whole number, not '${value}'.`);
  return Number(value);
}

export function positiveNumber(flag: string, value: string): number {
  const number = Number(value);
  if (!/^[0-9]+(\.[0-9]+)?$/.test(value) || number <= 0) throw new UsageError(`${flag} must be a positive number, not '${value}'.`);
  return number;
}
