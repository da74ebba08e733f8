import type { BuildHeader, ConsumedLine } from '../../boms/index.ts';
import { sumQuantities } from '../../inventory/index.ts';

/**
 * The tree of a lot trace (docs/inventory.md "Tracing a lot"), level by level from the lot
 * traced: forward, the builds that consumed a lot and the lot each produced; backward, the build
 * that produced a lot and the lots it consumed. Pure: the builds come from a `BuildSource`.
 */

export type TraceDirection = 'forward' | 'backward';

/** A lot of an item: what a trace starts from and follows. */
export interface LotRef {
  itemId: string;
  lot: string;
}

/**
 * A build as a trace reads it: forward, what it produced is in its header; backward, every line
 * it consumed is needed too, so a backward page's builds always have `consumed`.
 */
export type TracedBuild = BuildHeader & { consumed?: readonly ConsumedLine[] };

/** One page of the builds that consumed (forward) or produced (backward) a lot, oldest first. */
export interface BuildPage {
  /** Each build with the position after it, to read on from. */
  builds: Array<{ build: TracedBuild; after: string }>;
  more: boolean;
}

export interface BuildSource {
  buildsFrom(lot: LotRef, direction: TraceDirection, after: string | undefined, limit: number): Promise<BuildPage>;
}

export interface TraceNode {
  itemId: string;
  /** Null: the item is not tracked by lot, so the trace does not follow it further. */
  lot: string | null;
  quantity: number;
  buildId: string;
  bomId: string;
  builtAt: string;
  children: TraceNode[];
  /** The node cap cut its children: `continuation` lists the rest. */
  truncated: boolean;
  continuation: TraceContinuation | null;
}

/**
 * What lists the children the cap cut: a trace of the same lot, `depth` levels deep, from after
 * `after` (null: from the start), less the first `skip` nodes of the build there when the cap
 * split it (absent: none).
 */
export interface TraceContinuation {
  depth: number;
  after: string | null;
  skip?: number;
}

export interface TraceTree {
  nodes: TraceNode[];
  nodeCount: number;
  truncated: boolean;
  /** The traced lot's own builds were cut. */
  continuation: TraceContinuation | null;
}

export interface TraceOptions {
  direction: TraceDirection;
  /** Levels of builds to follow, at least 1. */
  depth: number;
  maxNodes: number;
  /** Where the root's children start (a continuation's position). */
  after?: string | undefined;
  /** Nodes of the first build there that an earlier response held (a continuation's `skip`). */
  skip?: number | undefined;
}

/** Lots whose builds are read at once within a level. */
const READ_CONCURRENCY = 8;
/** Builds asked for in one read, whatever room the cap leaves. */
const MAX_BUILDS_PER_READ = 200;

/** What one build adds under the lot it was reached from, in the trace's direction. */
export function nodesOfBuild(build: TracedBuild, direction: TraceDirection): TraceNode[] {
  const base = { buildId: build.id, bomId: build.bomId, builtAt: build.builtAt, children: [], truncated: false, continuation: null };
  if (direction === 'forward') return [{ ...base, itemId: build.outputItemId, lot: build.outputLot ?? null, quantity: build.quantity }];
  if (!build.consumed) throw new Error(`A backward trace needs every line build ${build.id} consumed`);
  // A lot drawn from several stock records (locations) is one node: the quantities add up.
  const byLot = new Map<string, TraceNode>();
  for (const line of build.consumed) {
    const key = JSON.stringify([line.itemId, line.lot]);
    const seen = byLot.get(key);
    if (seen) seen.quantity = sumQuantities([seen.quantity, line.quantity]);
    else byLot.set(key, { ...base, children: [], itemId: line.itemId, lot: line.lot, quantity: line.quantity });
  }
  return [...byLot.values()];
}

interface Expansion {
  lot: LotRef;
  /** Where its children go: the node's, or the trace's own list for the root. */
  owner: TraceNode | undefined;
  into: TraceNode[];
  /** Levels still to follow below it. */
  depth: number;
  /** The lots above it, so a cycle (which builds cannot make) still ends. */
  ancestors: ReadonlySet<string>;
  after: string | undefined;
  /** Nodes of the first build after `after` already listed. */
  skip: number;
}

const lotKey = (lot: LotRef) => JSON.stringify([lot.itemId, lot.lot]);

/**
 * Follows the builds from `root` breadth first, up to `depth` levels and `maxNodes` nodes. A
 * build's nodes enter whole or not at all, except a build with more nodes than `maxNodes`, which
 * no response could hold whole: as many of its nodes enter as there is room for, so every
 * response makes progress and none exceeds the cap. When one does not fit, its lot and every lot
 * not yet expanded are marked truncated, each with the continuation that lists the rest.
 */
export async function buildTraceTree(root: LotRef, options: TraceOptions, source: BuildSource): Promise<TraceTree> {
  if (options.depth < 1 || options.maxNodes < 1) throw new Error('A trace follows at least one level and holds at least one node');
  const tree: TraceTree = { nodes: [], nodeCount: 0, truncated: false, continuation: null };
  const cut = (expansion: Expansion, after: string | undefined, skip: number) => {
    const continuation: TraceContinuation = { depth: expansion.depth, after: after ?? null, ...(skip > 0 ? { skip } : {}) };
    if (expansion.owner) Object.assign(expansion.owner, { truncated: true, continuation });
    else tree.continuation = continuation;
    tree.truncated = true;
  };
  let level: Expansion[] = [
    { lot: root, owner: undefined, into: tree.nodes, depth: options.depth, ancestors: new Set([lotKey(root)]), after: options.after, skip: options.skip ?? 0 },
  ];
  while (level.length > 0) {
    const next: Expansion[] = [];
    for (let start = 0; start < level.length; start += READ_CONCURRENCY) {
      const batch = level.slice(start, start + READ_CONCURRENCY);
      const room = options.maxNodes - tree.nodeCount;
      if (room <= 0) {
        for (const expansion of batch) cut(expansion, expansion.after, expansion.skip);
        continue;
      }
      const limit = Math.min(room, MAX_BUILDS_PER_READ);
      const pages = await Promise.all(batch.map((expansion) => source.buildsFrom(expansion.lot, options.direction, expansion.after, limit)));
      for (const [index, expansion] of batch.entries()) {
        await expand(expansion, pages[index] as BuildPage, limit, next);
      }
    }
    level = next;
  }
  return tree;

  /** Adds the builds of `page` (and the pages after it) under `expansion` while they fit; queues their lots for the next level. */
  async function expand(expansion: Expansion, first: BuildPage, limit: number, next: Expansion[]): Promise<void> {
    let page = first;
    let position = expansion.after;
    let skip = expansion.skip;
    for (;;) {
      for (const { build, after } of page.builds) {
        const all = nodesOfBuild(build, options.direction);
        const rest = all.slice(skip);
        const room = options.maxNodes - tree.nodeCount;
        const fitting = rest.length <= room ? rest : all.length > options.maxNodes ? rest.slice(0, room) : [];
        add(expansion, fitting, next);
        if (fitting.length < rest.length) return cut(expansion, position, skip + fitting.length);
        position = after;
        skip = 0;
      }
      if (!page.more) return;
      if (tree.nodeCount >= options.maxNodes) return cut(expansion, position, skip);
      page = await source.buildsFrom(expansion.lot, options.direction, position, Math.min(options.maxNodes - tree.nodeCount, limit));
    }
  }

  function add(expansion: Expansion, nodes: readonly TraceNode[], next: Expansion[]): void {
    expansion.into.push(...nodes);
    tree.nodeCount += nodes.length;
    for (const node of nodes) {
      if (node.lot === null || expansion.depth <= 1) continue;
      const lot = { itemId: node.itemId, lot: node.lot };
      if (expansion.ancestors.has(lotKey(lot))) continue;
      next.push({
        lot,
        owner: node,
        into: node.children,
        depth: expansion.depth - 1,
        ancestors: new Set([...expansion.ancestors, lotKey(lot)]),
        after: undefined,
        skip: 0,
      });
    }
  }
}
