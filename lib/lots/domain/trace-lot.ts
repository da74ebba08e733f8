import { ApiError, NotFoundError } from '../../platform/core/errors.ts';
import type { Item } from '../../inventory/index.ts';
import { invalidCursorError, type CursorBinding, type CursorCodec } from '../../platform/pagination/cursor.ts';
import { buildTraceTree, type BuildPage, type LotRef, type TraceContinuation, type TraceDirection, type TraceNode } from './trace-tree.ts';

/**
 * `GET /v1/lots/trace` (docs/inventory.md "Tracing a lot"): the item by sku, its lot checked, the
 * tree of builds followed from it, then the skus of every item the tree names.
 */

/** Levels a trace follows by default and at most; nodes one response holds at most. */
export const LOT_TRACE_DEFAULT_DEPTH = 5;
export const LOT_TRACE_MAX_DEPTH = 10;
export const LOT_TRACE_MAX_NODES = 1000;

export interface LotTraceStorage {
  itemBySku(organizationId: string, sku: string): Promise<Item | undefined>;
  itemsByIds(organizationId: string, itemIds: ReadonlySet<string>): Promise<Map<string, Item>>;
  /** Whether the item ever had a stock record of this lot. */
  lotSeen(organizationId: string, lot: LotRef): Promise<boolean>;
  buildsFrom(organizationId: string, lot: LotRef, direction: TraceDirection, after: string | undefined, limit: number): Promise<BuildPage>;
}

export interface LotTraceQuery {
  sku: string;
  lot: string;
  direction: TraceDirection;
  depth: number;
  cursor?: string | undefined;
}

/** Resend the trace of the node's lot with this depth (and cursor, when not null) for the children the cap cut. */
export interface LotTraceContinuationView {
  depth: number;
  cursor: string | null;
}

export interface LotTraceNodeView extends Omit<TraceNode, 'children' | 'continuation'> {
  /** Null only for an item no longer stored. */
  sku: string | null;
  continuation: LotTraceContinuationView | null;
  children: LotTraceNodeView[];
}

export interface LotTrace {
  sku: string;
  itemId: string;
  lot: string;
  direction: TraceDirection;
  depth: number;
  nodeCount: number;
  truncated: boolean;
  continuation: LotTraceContinuationView | null;
  nodes: LotTraceNodeView[];
}

export function notLotTrackedError(sku: string): ApiError {
  return new ApiError(400, 'customer-api.lots.not-lot-tracked', 'Item not tracked by lot', {
    detail: `Item "${sku}" is not tracked by lot (trackingMode "none"), so it has no lots to trace.`,
  });
}

export class LotTraces {
  constructor(
    private readonly storage: LotTraceStorage,
    private readonly cursors: CursorCodec,
    private readonly maxNodes = LOT_TRACE_MAX_NODES,
  ) {}

  async trace(organizationId: string, query: LotTraceQuery): Promise<LotTrace> {
    const item = await this.storage.itemBySku(organizationId, query.sku);
    if (!item) throw new NotFoundError('inventory', `No item with sku "${query.sku}".`);
    if (item.trackingMode !== 'lot') throw notLotTrackedError(item.sku);
    const root = { itemId: item.id, lot: query.lot };
    const { after, skip } =
      query.cursor === undefined ? { after: undefined, skip: 0 } : await this.position(organizationId, root, query.direction, query.cursor);
    const source = {
      buildsFrom: (lot: LotRef, direction: TraceDirection, from: string | undefined, limit: number) =>
        this.storage.buildsFrom(organizationId, lot, direction, from, limit),
    };
    const tree = await buildTraceTree(root, { direction: query.direction, depth: query.depth, maxNodes: this.maxNodes, after, skip }, source);
    if (tree.nodeCount === 0 && query.cursor === undefined && !(await this.storage.lotSeen(organizationId, root))) {
      throw new NotFoundError('inventory', `Item "${item.sku}" never had lot "${query.lot}".`);
    }
    const items = await this.storage.itemsByIds(organizationId, itemIdsOf(tree.nodes));
    const skuOf = (itemId: string) => items.get(itemId)?.sku ?? null;
    const continuationOf = (lot: LotRef, continuation: TraceContinuation | null): LotTraceContinuationView | null =>
      continuation && {
        depth: continuation.depth,
        cursor: cursorOf(continuation, (position) => this.cursors.encode(position, bindingOf(organizationId, lot, query.direction))),
      };
    const view = (node: TraceNode): LotTraceNodeView => ({
      ...node,
      sku: skuOf(node.itemId),
      // Only a node with a lot is ever followed, so only such a node is cut.
      continuation: node.lot === null ? null : continuationOf({ itemId: node.itemId, lot: node.lot }, node.continuation),
      children: node.children.map(view),
    });
    return {
      sku: item.sku,
      itemId: item.id,
      lot: query.lot,
      direction: query.direction,
      depth: query.depth,
      nodeCount: tree.nodeCount,
      truncated: tree.truncated,
      continuation: continuationOf(root, tree.continuation),
      nodes: tree.nodes.map(view),
    };
  }

  private async position(
    organizationId: string,
    root: LotRef,
    direction: TraceDirection,
    cursor: string,
  ): Promise<{ after: string | undefined; skip: number }> {
    const position = await this.cursors.decode(cursor, bindingOf(organizationId, root, direction));
    if (typeof position === 'string') return { after: position, skip: 0 };
    if (isInsideBuild(position)) return { after: position.after ?? undefined, skip: position.skip };
    throw invalidCursorError();
  }
}

/** A cursor's position inside a build the cap split: after `after` (null: the lot's first build), less its first `skip` nodes. */
interface InsideBuild {
  after: string | null;
  skip: number;
}

function isInsideBuild(position: unknown): position is InsideBuild {
  if (typeof position !== 'object' || position === null) return false;
  const { after, skip } = position as Record<string, unknown>;
  return (after === null || typeof after === 'string') && typeof skip === 'number' && Number.isSafeInteger(skip) && skip > 0;
}

/**
 * A continuation's cursor: none to start the lot from its first build; between builds the
 * position alone (as cursors always were); inside a split build, the position and the skip, so
 * a split build's continuation is never the request it answers.
 */
function cursorOf(continuation: TraceContinuation, encode: (position: string | InsideBuild) => string): string | null {
  const skip = continuation.skip ?? 0;
  if (skip > 0) return encode({ after: continuation.after, skip });
  return continuation.after === null ? null : encode(continuation.after);
}

/** A continuation's cursor resumes the children of one lot, traced one way. */
function bindingOf(organizationId: string, lot: LotRef, direction: TraceDirection): CursorBinding {
  return { organizationId, endpoint: 'GET /v1/lots/trace', filters: { itemId: lot.itemId, lot: lot.lot, direction } };
}

function itemIdsOf(nodes: readonly TraceNode[]): Set<string> {
  const ids = new Set<string>();
  const visit = (node: TraceNode) => {
    ids.add(node.itemId);
    node.children.forEach(visit);
  };
  nodes.forEach(visit);
  return ids;
}
