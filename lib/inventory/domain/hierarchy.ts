/** A stored record as read, with its version: what a commit is conditioned on. */
interface Read {
  record: unknown;
  version: number;
}

/**
 * Parent links of tree-shaped records (locations), as they will stand after the rows decided
 * so far: what keeps an import from making a record its own ancestor.
 *
 * A link decided on the tree as read holds only while the ancestors it rests on stay as read
 * (another job may move one of them meanwhile, e.g. B under A while this one moves A under B):
 * the hierarchy keeps each stored record's version and, for the chunk being built, the stored
 * ancestors its decided links rest on, which the chunk's commit checks unchanged.
 */
export class Hierarchy {
  /** Stored records by key, with the version read (or committed by this run). */
  private readonly stored = new Map<string, Read>();
  private chunk = { checks: new Set<string>(), written: new Map<string, unknown>() };
  /** The current unit's checks and writes before it, and the links it changed (with their previous parent; undefined: unknown before). */
  private saved: { checks: Set<string>; written: Map<string, unknown>; links: Array<[string, string | null | undefined]> } | undefined;

  constructor(private readonly parents: Map<string, string | null>) {}

  /** Notes a stored record's version as read (a record this run wrote keeps the version it committed). */
  noteStored(key: string, read: Read): void {
    if (!this.stored.has(key)) this.stored.set(key, read);
  }

  /** Starts a chunk: no ancestors to check yet. */
  startChunk(): void {
    this.chunk = { checks: new Set(), written: new Map() };
    this.saved = undefined;
  }

  /** Starts a unit, which `rollback` undoes (links and checks). */
  begin(): void {
    // A chunk's checks and writes are few (one transaction's worth): copying them is cheap.
    this.saved = { checks: new Set(this.chunk.checks), written: new Map(this.chunk.written), links: [] };
  }

  rollback(): void {
    if (!this.saved) return;
    this.chunk = { checks: this.saved.checks, written: this.saved.written };
    for (const [key, parent] of this.saved.links.reverse()) {
      if (parent === undefined) this.parents.delete(key);
      else this.parents.set(key, parent);
    }
    this.saved = undefined;
  }

  /**
   * A decision gives `key` (the record `record`) the parent `parent`: the link is set, and when it
   * moves a stored record (a new parent), the stored ancestors of its new chain are checked
   * unchanged when the chunk commits. Only such moves can close a cycle: a new record has no
   * descendants, and a record that keeps its parent changes no chain.
   */
  link(key: string, parent: string | null, record: unknown): void {
    const previous = this.parents.get(key);
    this.saved?.links.push([key, previous]);
    this.parents.set(key, parent);
    this.chunk.written.set(key, record);
    if (!this.stored.has(key) || previous === parent) return;
    const seen = new Set<string>();
    for (let current = parent; current !== null && !seen.has(current); current = this.parents.get(current) ?? null) {
      seen.add(current);
      if (this.stored.has(current)) this.chunk.checks.add(current);
    }
  }

  /** The chunk's stored ancestors to check, less the records it writes (their own writes are conditioned). */
  checks(): Array<{ key: string } & Read> {
    return [...this.chunk.checks]
      .filter((key) => !this.chunk.written.has(key))
      .flatMap((key) => {
        const read = this.stored.get(key);
        return read ? [{ key, ...read }] : [];
      });
  }

  /** After the chunk committed: what it wrote is stored now, one version on. */
  committed(): void {
    for (const [key, record] of this.chunk.written) this.stored.set(key, { record, version: (this.stored.get(key)?.version ?? 0) + 1 });
    this.startChunk();
  }

  /** True when giving `key` the parent `parent` would put `key` among its own ancestors. */
  wouldCycle(key: string, parent: string | null): boolean {
    const seen = new Set<string>();
    for (let current = parent; current !== null; current = this.parents.get(current) ?? null) {
      if (current === key || seen.has(current)) return true;
      seen.add(current);
    }
    return false;
  }

  set(key: string, parent: string | null): void {
    this.parents.set(key, parent);
  }

  /** Every record whose parent link is known. */
  keys(): string[] {
    return [...this.parents.keys()];
  }

  /**
   * Adds stored parent links of records not known yet (a link set by a decision stays), then
   * loads their ancestors as `loadAncestry` does.
   */
  async include(links: Map<string, string | null>, load: (keys: string[]) => Promise<Map<string, string | null>>): Promise<void> {
    for (const [key, parent] of links) if (!this.parents.has(key)) this.parents.set(key, parent);
    await loadAncestry(this.parents, load);
  }
}

/**
 * Loads parent links upward from `known` until every ancestor is known, at any depth: a tree of
 * depth d takes d rounds of one batched read each. It always ends: a round only asks for keys not
 * yet known, so even a corrupted chain that loops is read once.
 */
export async function loadAncestry(known: Map<string, string | null>, load: (keys: string[]) => Promise<Map<string, string | null>>): Promise<Hierarchy> {
  for (;;) {
    const missing = [...new Set([...known.values()].filter((parent): parent is string => parent !== null && !known.has(parent)))];
    if (missing.length === 0) break;
    const loaded = await load(missing);
    for (const key of missing) known.set(key, loaded.get(key) ?? null);
  }
  return new Hierarchy(known);
}
