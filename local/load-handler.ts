import type { Context } from 'aws-lambda';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Loads deployable handler files (the `handler` entries of lib/<area>/routes.ts and lib/app/workers.ts) the
 * way Lambda does: each file is imported once, on first use (its module scope is the cold start),
 * so call it only after the environment (table names, endpoints) is set. A failed import is not
 * cached: the next invocation tries the cold start again, as Lambda would.
 */

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const handlerModules = new Map<string, Promise<unknown>>();

/** The `handler` export of `entry` (relative to the repository root). */
export function loadHandler<H>(entry: string): Promise<H> {
  let loaded = handlerModules.get(entry);
  if (!loaded) {
    loaded = import(pathToFileURL(resolve(repositoryRoot, entry)).href).then((module: { handler?: unknown }) => {
      if (typeof module.handler !== 'function') throw new Error(`${entry} does not export a function named 'handler'`);
      return module.handler;
    });
    loaded.catch(() => handlerModules.delete(entry));
    handlerModules.set(entry, loaded);
  }
  return loaded as Promise<H>;
}

export class HandlerTimeoutError extends Error {
  constructor(functionName: string, timeoutMs: number) {
    super(`${functionName} timed out after ${timeoutMs} ms`);
    this.name = 'HandlerTimeoutError';
  }
}

/**
 * Runs a handler with Lambda's timeout: the result, or a HandlerTimeoutError once `timeoutMs` has
 * passed. Lambda would freeze the container then; locally the handler's promise cannot be killed
 * and keeps running in the background, but its caller moves on as Lambda's event source would.
 */
export async function invokeWithTimeout<E, R>(
  handler: (event: E, context: Context) => Promise<R> | R,
  event: E,
  context: Context,
  timeoutMs: number,
): Promise<R> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HandlerTimeoutError(context.functionName, timeoutMs)), timeoutMs);
  });
  try {
    // `then` also turns a synchronous throw into a rejection.
    return await Promise.race([Promise.resolve().then(() => handler(event, context)), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
