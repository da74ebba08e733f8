import { randomUUID } from 'node:crypto';
import type { DryRunOverlayPointer, ImportJobState } from '../job.ts';
import type { ImportRecords, RecordWrite } from '../kind-definition.ts';
import { DryRunOverlay, entriesOf, type OverlayEntry } from './dry-run-overlay.ts';
import { DryRunRecords } from './dry-run-records.ts';

/**
 * A dry run across invocations (docs/imports.md "Dry runs"). The overlay of would-be records is
 * kept in the files bucket as the objects of segments: each delivery of the job writes one
 * segment, whose object 0 is the whole overlay as of its first chunk and whose object n is what
 * its (n+1)-th chunk added. An object is written BEFORE the chunk's transaction, and that
 * transaction moves the job's pointer (segment, objects) together with its checkpoint: the
 * pointer always names exactly the chunks that committed. A delivery that crashed or lost the
 * race leaves objects no pointer names, which are never read.
 */

/** Where the overlay objects live (the files bucket, beside the job's file). */
export interface DryRunOverlayObjects {
  put(key: string, body: string): Promise<void>;
  /** The object's body; throws when it is missing (a pointer only names objects that were written). */
  get(key: string): Promise<string>;
}

interface OverlayObject {
  entries: OverlayEntry[];
}

export function overlayObjectKey(job: Pick<ImportJobState, 'organizationId' | 'id'>, segment: string, index: number): string {
  return `imports/${job.organizationId}/dry-runs/${job.id}/${segment}/${index}.json`;
}

export class DryRunSession<Write extends object> {
  readonly records: DryRunRecords<Write>;
  private readonly segment = randomUUID();
  /** Objects of this delivery's segment that committed chunks wrote. */
  private committedObjects = 0;

  private constructor(
    private readonly objects: DryRunOverlayObjects,
    private readonly job: Pick<ImportJobState, 'organizationId' | 'id'>,
    store: ImportRecords<Write>,
    overlay: DryRunOverlay,
  ) {
    this.records = new DryRunRecords(store, overlay);
  }

  /** The overlay the job's pointer names (empty before its first chunk). */
  static async resume<Write extends object>(objects: DryRunOverlayObjects, job: ImportJobState, store: ImportRecords<Write>): Promise<DryRunSession<Write>> {
    const pointer = job.dryRunOverlay;
    const overlay = new DryRunOverlay();
    if (pointer) {
      const keys = Array.from({ length: pointer.objects }, (_, index) => overlayObjectKey(job, pointer.segment, index));
      const bodies = await Promise.all(keys.map((key) => objects.get(key)));
      for (const body of bodies) overlay.apply((JSON.parse(body) as OverlayObject).entries);
    }
    return new DryRunSession(objects, job, store, overlay);
  }

  /**
   * Writes what a chunk's record writes would store, as the next object of this delivery's
   * segment, and gives the pointer the chunk's checkpoint must set and the entries to apply once
   * it committed.
   */
  async stage(recordWrites: readonly RecordWrite[]): Promise<{ pointer: DryRunOverlayPointer; entries: OverlayEntry[] }> {
    const entries = recordWrites.flatMap(entriesOf);
    const index = this.committedObjects;
    // The first object of a segment holds the whole overlay: a resume reads one segment only.
    const body: OverlayObject = { entries: index === 0 ? [...this.records.overlay.entries(), ...entries] : entries };
    await this.objects.put(overlayObjectKey(this.job, this.segment, index), JSON.stringify(body));
    return { pointer: { segment: this.segment, objects: index + 1 }, entries };
  }

  /** The staged chunk committed: later rows see its records. */
  committed(entries: readonly OverlayEntry[]): void {
    this.records.overlay.apply(entries);
    this.committedObjects += 1;
  }
}
