import type { InventoryClient } from '../create-client.ts';
import { RepeatedCursorError } from '../errors/repeated-cursor-error.ts';
import type { LotTrace, LotTraceDirection, LotTraceNode } from '../types.ts';
import { unwrap } from '../unwrap.ts';

export interface LotTraceRequest {
  sku: string;
  lot: string;
  direction: LotTraceDirection;
  /** 1..10; the API's default (5) unless told. */
  depth?: number;
  /** A continuation's cursor (`traceLotAll` sends them itself). */
  cursor?: string;
  signal?: AbortSignal;
}

/** GET /v1/lots/trace: one response, at most 1000 nodes (docs/inventory.md "Tracing a lot"). */
export async function traceLot(client: InventoryClient, request: LotTraceRequest): Promise<LotTrace> {
  const { signal, ...query } = request;
  return unwrap(client.api.GET('/v1/lots/trace', { params: { query }, signal }));
}

/** What a continuation's answer goes under: a truncated node, or the trace itself for the traced lot. */
interface Owner {
  sku: string | null;
  lot: string | null;
  children: LotTraceNode[];
  truncated: boolean;
  continuation: LotTrace['continuation'];
}

/**
 * The whole trace: the first response, then, for the traced lot and every truncated node, the
 * request its `continuation` names, its answer's nodes appended to that node's children (and the
 * answer's own continuations followed in turn). Returns the first response completed: nothing
 * truncated, `nodeCount` the whole tree's. A continuation that repeats one already followed for
 * the same node (or the traced lot) throws a RepeatedCursorError. Two nodes of one lot may be
 * continued alike: each is its own walk.
 */
export async function traceLotAll(client: InventoryClient, request: Omit<LotTraceRequest, 'cursor'>): Promise<LotTrace> {
  const trace = await traceLot(client, request);
  const root: Owner = {
    sku: trace.sku,
    lot: trace.lot,
    children: trace.nodes,
    truncated: trace.truncated && trace.continuation !== null,
    continuation: trace.continuation,
  };
  const pending: Owner[] = [...(root.continuation ? [root] : []), ...truncatedIn(trace.nodes)];
  // The continuations each owner was read with; the traced lot was read from its start.
  const followed = new Map<Owner, Set<string>>([[root, new Set([continuationKey({ depth: trace.depth, cursor: null })])]]);
  for (let owner = pending.shift(); owner; owner = pending.shift()) {
    const { continuation, sku, lot } = owner;
    if (!continuation || lot === null) continue;
    if (sku === null) throw new Error(`Cannot continue the trace of lot ${lot}: its item is no longer stored.`);
    const seen = followed.get(owner) ?? new Set<string>();
    if (seen.has(continuationKey(continuation)))
      throw new RepeatedCursorError(`GET /v1/lots/trace of ${sku} lot ${lot} (${request.direction})`, continuation.cursor);
    followed.set(owner, seen.add(continuationKey(continuation)));
    const answer = await traceLot(client, {
      sku,
      lot,
      direction: request.direction,
      depth: continuation.depth,
      ...(continuation.cursor === null ? {} : { cursor: continuation.cursor }),
      ...(request.signal ? { signal: request.signal } : {}),
    });
    owner.children.push(...answer.nodes);
    owner.continuation = answer.continuation;
    owner.truncated = answer.continuation !== null;
    if (owner.continuation) pending.push(owner);
    pending.push(...truncatedIn(answer.nodes));
  }
  return { ...trace, nodes: root.children, truncated: false, continuation: null, nodeCount: countNodes(root.children) };
}

const continuationKey = (continuation: NonNullable<LotTrace['continuation']>) => JSON.stringify([continuation.depth, continuation.cursor]);

function truncatedIn(nodes: readonly LotTraceNode[]): LotTraceNode[] {
  const found: LotTraceNode[] = [];
  const visit = (node: LotTraceNode) => {
    if (node.continuation) found.push(node);
    node.children.forEach(visit);
  };
  nodes.forEach(visit);
  return found;
}

function countNodes(nodes: readonly LotTraceNode[]): number {
  return nodes.reduce((sum, node) => sum + 1 + countNodes(node.children), 0);
}
