import type { InventoryClient } from '../create-client.ts';
import type { Build, BuildSubmission } from '../types.ts';
import { unwrap } from '../unwrap.ts';

/** Builds of a BOM, run as jobs (docs/boms.md "Builds"): submit one, then follow it to its end. */

export interface BuildSubmitOptions {
  /** A key of your own, e.g. to make a resubmission after a crash replay the first submission. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface BuildWaitOptions {
  /** Called after every poll with the build (its status and the step it runs next), the finished build last. */
  onProgress?: (build: Build) => void;
  /** The first pause between polls. */
  initialDelayMs?: number;
  /** The longest pause between polls. */
  maxDelayMs?: number;
  signal?: AbortSignal;
}

export const isBuildFinished = (build: Build): boolean => build.status === 'succeeded' || build.status === 'failed';

/** POST /v1/builds: the queued build (202; its URL is in `Location`). */
export async function submitBuild(client: InventoryClient, body: BuildSubmission, options: BuildSubmitOptions = {}): Promise<Build> {
  return unwrap(
    client.api.POST('/v1/builds', { params: { header: { 'Idempotency-Key': options.idempotencyKey ?? crypto.randomUUID() } }, body, signal: options.signal }),
  );
}

/**
 * Polls GET /v1/builds/{id} until the build has succeeded or failed. Every step a build commits
 * moves its `updatedAt`: the pause stays put while steps commit and grows by half while nothing
 * moves (a queue that is slow to deliver), so a long build costs few requests and a short one
 * is seen finished soon.
 */
export async function waitForBuild(client: InventoryClient, buildId: string, options: BuildWaitOptions = {}): Promise<Build> {
  const maxDelayMs = options.maxDelayMs ?? 5000;
  let delayMs = options.initialDelayMs ?? 250;
  let lastState = '';
  for (;;) {
    const build = await unwrap(client.api.GET('/v1/builds/{id}', { params: { path: { id: buildId } }, signal: options.signal }));
    options.onProgress?.(build);
    if (isBuildFinished(build)) return build;
    const state = `${build.status} ${build.phase} ${build.updatedAt}`;
    delayMs = state === lastState ? Math.min(maxDelayMs, Math.ceil(delayMs * 1.5)) : delayMs;
    lastState = state;
    await client.sleep(delayMs, options.signal);
  }
}
