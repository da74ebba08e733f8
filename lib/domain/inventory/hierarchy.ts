/**
 * Parent links of tree-shaped records (locations), as they will stand after the rows decided
 * so far: what keeps an import from making a record its own ancestor.
 */
export class Hierarchy {
  constructor(private readonly parents: Map<string, string | null>) {}

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
export async function loadAncestry(
  known: Map<string, string | null>,
  load: (keys: string[]) => Promise<Map<string, string | null>>,
): Promise<Hierarchy> {
  for (;;) {
    const missing = [...new Set([...known.values()].filter((parent): parent is string => parent !== null && !known.has(parent)))];
    if (missing.length === 0) break;
    const loaded = await load(missing);
    for (const key of missing) known.set(key, loaded.get(key) ?? null);
  }
  return new Hierarchy(known);
}
