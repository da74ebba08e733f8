import { Hierarchy } from '../../../inventory/index.ts';
import type { VersionedRecord } from '../../../inventory/index.ts';
import type { AnyImportKind, ImportRecords, ReferenceEntity } from '../kind-definition.ts';
import { referencedKeys, type ParsedRow } from '../validate-file.ts';
import type { Pending, References } from './run-state.ts';

/**
 * Reference loading: every record the rows still to handle refer to, read once per run before
 * validation (a continuation reads only what its rows need), and
 * for tree-shaped kinds (locations) the parent links of those records and all their ancestors.
 */

/** Referenced keys read between two looks at the clock (the store reads their pages in parallel). */
const REFERENCES_PER_SLICE = 2000;

/** Every key the file refers to, read in slices with a look at the clock between them; undefined when time ran out. */
export async function loadReferences(
  records: ImportRecords<unknown>,
  organizationId: string,
  kind: AnyImportKind,
  parsed: readonly ParsedRow<unknown>[],
  hasTime: () => boolean,
): Promise<References | undefined> {
  const loaded: References = new Map();
  for (const [entity, keySet] of referencedKeys(kind, parsed)) {
    const found = new Map<string, VersionedRecord<unknown>>();
    const keys = [...keySet];
    for (let start = 0; start < keys.length; start += REFERENCES_PER_SLICE) {
      if (!hasTime()) return undefined;
      for (const [key, record] of await records.getByNaturalKeys(organizationId, entity, keys.slice(start, start + REFERENCES_PER_SLICE)))
        found.set(key, record);
    }
    loaded.set(entity, found);
  }
  return loaded;
}

/**
 * After a conflict: the records the entries' rows refer to, read again (e.g. a BOM revised or
 * archived since the run read it), so the entries are decided on them as they are now. A record
 * that vanished keeps its last known state: none of them is ever deleted.
 */
export async function reloadReferences(
  records: ImportRecords<unknown>,
  organizationId: string,
  kind: AnyImportKind,
  references: References,
  entries: readonly Pending[],
): Promise<void> {
  const wanted = new Map<ReferenceEntity, Set<string>>();
  for (const row of entries.flatMap((entry) => entry.unit?.rows ?? [])) {
    for (const reference of kind.references(row)) wanted.set(reference.entity, (wanted.get(reference.entity) ?? new Set()).add(reference.key));
  }
  for (const [entity, keys] of wanted) {
    const loaded = references.get(entity) ?? new Map<string, VersionedRecord<unknown>>();
    for (const [key, record] of await records.getByNaturalKeys(organizationId, entity, keys)) loaded.set(key, record);
    references.set(entity, loaded);
  }
}

/** Of `keys`, those the tenant's data holds (rows up to the checkpoint were applied already: what they created is tenant data now). */
export function knownIn(references: References) {
  return (entity: ReferenceEntity, keys: readonly string[]) => new Set(keys.filter((key) => references.get(entity)?.has(key)));
}

/** For tree-shaped kinds: the parent links of the referenced records and all their ancestors. */
export async function hierarchyOf(
  records: ImportRecords<unknown>,
  organizationId: string,
  kind: AnyImportKind,
  references: References,
): Promise<Hierarchy | undefined> {
  if (!kind.parentKeyOf || kind.entity === 'bom' || kind.entity === 'stock-entry') return undefined;
  const hierarchy = new Hierarchy(new Map());
  await includeInHierarchy(records, organizationId, kind, hierarchy, references.get(kind.entity) ?? new Map());
  return hierarchy;
}

/** Adds the parent links of `found` and of all their ancestors (read as needed) to the hierarchy. */
export async function includeInHierarchy(
  records: ImportRecords<unknown>,
  organizationId: string,
  kind: AnyImportKind,
  hierarchy: Hierarchy,
  found: Map<string, VersionedRecord<unknown>>,
): Promise<void> {
  const { parentKeyOf } = kind;
  if (!parentKeyOf) return;
  // Versions too: a decision resting on an ancestor is committed only while it stays as read.
  for (const [key, read] of found) hierarchy.noteStored(key, read);
  await hierarchy.include(new Map([...found].map(([key, { record }]) => [key, parentKeyOf(record)])), async (keys) => {
    const ancestors = await records.getByNaturalKeys(organizationId, kind.entity, keys);
    for (const [key, read] of ancestors) hierarchy.noteStored(key, read);
    return new Map([...ancestors].map(([key, { record }]) => [key, parentKeyOf(record)]));
  });
}
