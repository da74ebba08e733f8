/**
 * How long a claimed attempt may run (docs/webhooks.md "Guarantees"), apart from the worker's
 * code so the stores can file a claimed task in the due index without bundling the worker.
 */

/** An attempt claimed longer ago than this died with its worker (15 s send + the worker's timeout to spare). */
export const STALE_ATTEMPT_MS = 90_000;
