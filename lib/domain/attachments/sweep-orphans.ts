import { parseAttachmentObjectKey } from './attachment.ts';

/**
 * The orphan sweep (docs/attachments.md "Deleting"): a body no record names, older than
 * `olderThanMs` (so that an upload between storing its body and committing its record is never
 * touched), is deleted. Orphans come from uploads whose record never committed and from deletes
 * whose body could not be removed right away.
 */

export const ORPHAN_MIN_AGE_MS = 60 * 60 * 1000;
/** Records looked up per batch (one BatchGetItem). */
const LOOKUP_BATCH = 100;

export interface OrphanSweepPorts {
  listed(): AsyncIterable<{ key: string; lastModified: Date }>;
  existing(organizationId: string, attachmentIds: string[]): Promise<Set<string>>;
  delete(key: string): Promise<void>;
  onError(key: string, error: unknown): void;
}

export async function sweepOrphanObjects(ports: OrphanSweepPorts, now: Date, olderThanMs = ORPHAN_MIN_AGE_MS): Promise<{ examined: number; deleted: number; errors: number }> {
  const cutoff = now.getTime() - olderThanMs;
  const tally = { examined: 0, deleted: 0, errors: 0 };
  let batch: Array<{ key: string; organizationId: string; attachmentId: string }> = [];
  const settle = async () => {
    const byOrganization = new Map<string, typeof batch>();
    for (const candidate of batch) byOrganization.set(candidate.organizationId, [...(byOrganization.get(candidate.organizationId) ?? []), candidate]);
    batch = [];
    for (const [organizationId, candidates] of byOrganization) {
      const existing = await ports.existing(organizationId, candidates.map((candidate) => candidate.attachmentId));
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
  for await (const object of ports.listed()) {
    tally.examined += 1;
    const named = parseAttachmentObjectKey(object.key);
    if (!named || object.lastModified.getTime() > cutoff) continue;
    batch.push({ key: object.key, ...named });
    if (batch.length >= LOOKUP_BATCH) await settle();
  }
  await settle();
  return tally;
}
