import { parseAttachmentObjectKey } from './attachment.ts';

/**
 * The orphan sweep (docs/attachments.md "Deleting"): a body no record names, older than
 * `olderThanMs` (so that an upload between storing its body and committing its record is never
 * touched), is deleted. Orphans come from uploads whose record never committed and from deletes
 * whose body could not be removed right away.
 *
 * The listing is in key order (organization by organization). A run that runs out of time saves
 * the last key it examined, and the next run continues after it; a run that reaches the end
 * clears the position, so the next one starts over. Every body is examined once per round,
 * however many runs a round takes.
 */

export const ORPHAN_MIN_AGE_MS = 60 * 60 * 1000;
/** Records looked up per batch (one BatchGetItem). */
const LOOKUP_BATCH = 100;

/** Where a sweep that ran out of time stopped: the last key it examined. */
export interface SweepPosition {
  load(): Promise<string | undefined>;
  /** `undefined`: the listing was finished, the next run starts at the beginning. */
  save(lastKey: string | undefined): Promise<void>;
}

export interface OrphanSweepPorts {
  /** The bodies in key order, after `startAfter` (from the first without it). */
  listed(startAfter: string | undefined): AsyncIterable<{ key: string; lastModified: Date }>;
  existing(organizationId: string, attachmentIds: string[]): Promise<Set<string>>;
  delete(key: string): Promise<void>;
  onError(key: string, error: unknown): void;
  position: SweepPosition;
}

export interface OrphanSweepOptions {
  olderThanMs?: number;
  /** Time left for examining bodies (asked before each one); without it, the run lists to the end. */
  msLeft?: () => number;
}

export interface OrphanSweepTally {
  examined: number;
  deleted: number;
  errors: number;
  /** The last key examined when the run ran out of time (the next run continues after it); `null` when it reached the end. */
  stoppedAfter: string | null;
}

export async function sweepOrphanObjects(ports: OrphanSweepPorts, now: Date, options: OrphanSweepOptions = {}): Promise<OrphanSweepTally> {
  const { olderThanMs = ORPHAN_MIN_AGE_MS, msLeft = () => Infinity } = options;
  const cutoff = now.getTime() - olderThanMs;
  const tally = { examined: 0, deleted: 0, errors: 0 };
  let batch: Array<{ key: string; organizationId: string; attachmentId: string }> = [];
  const settle = async () => {
    const byOrganization = new Map<string, typeof batch>();
    for (const candidate of batch) byOrganization.set(candidate.organizationId, [...(byOrganization.get(candidate.organizationId) ?? []), candidate]);
    batch = [];
    for (const [organizationId, candidates] of byOrganization) {
      const existing = await ports.existing(
        organizationId,
        candidates.map((candidate) => candidate.attachmentId),
      );
      for (const candidate of candidates) {
        if (existing.has(candidate.attachmentId)) continue;
        try {
          await ports.delete(candidate.key);
          tally.deleted += 1;
        } catch (error) {
          tally.errors += 1;
          ports.onError(candidate.key, error);
        }
      }
    }
  };
  // Without its position a run still sweeps correctly, from the beginning.
  const startAfter = await ports.position.load().catch((error: unknown) => void ports.onError('(sweep position not read)', error));
  let lastExamined = startAfter;
  let outOfTime = false;
  for await (const object of ports.listed(startAfter)) {
    if (msLeft() <= 0) {
      outOfTime = true;
      break;
    }
    tally.examined += 1;
    lastExamined = object.key;
    const named = parseAttachmentObjectKey(object.key);
    if (!named || object.lastModified.getTime() > cutoff) continue;
    batch.push({ key: object.key, ...named });
    if (batch.length >= LOOKUP_BATCH) await settle();
  }
  // Every examined body is settled before the position moves past it.
  await settle();
  const stoppedAfter = outOfTime ? (lastExamined ?? null) : null;
  await ports.position.save(stoppedAfter ?? undefined).catch((error: unknown) => ports.onError('(sweep position not saved)', error));
  return { ...tally, stoppedAfter };
}
