import { describe, expect, it } from 'vitest';
import { createInventoryClient, traceLotAll, type LotTrace, type LotTraceNode } from '../../../client/index.ts';

/**
 * `traceLotAll` (docs/client.md "Lot traces"): a truncated trace completed from its continuations,
 * each answer grafted under the node it continues, against canned API answers.
 */

const node = (sku: string, lot: string, continuation: LotTraceNode['continuation'] = null, children: LotTraceNode[] = []): LotTraceNode => ({
  itemId: `itm_${sku}`,
  sku,
  lot,
  quantity: 1,
  buildId: `bld_${lot}`,
  bomId: 'bom_1',
  builtAt: '2026-11-27T10:00:00.000Z',
  truncated: continuation !== null,
  continuation,
  children,
});

const trace = (sku: string, lot: string, depth: number, nodes: LotTraceNode[], continuation: LotTrace['continuation'] = null): LotTrace => ({
  sku,
  itemId: `itm_${sku}`,
  lot,
  direction: 'forward',
  depth,
  nodeCount: nodes.length,
  truncated: continuation !== null || nodes.some((child) => child.truncated),
  continuation,
  nodes,
});

/** The answers by query (sku, lot, depth, cursor), and the queries asked, in order. */
function cannedApi(answers: Record<string, LotTrace>) {
  const asked: string[] = [];
  const fetch = async (input: Request | string | URL) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const query = ['sku', 'lot', 'depth', 'cursor'].map((name) => `${name}=${url.searchParams.get(name) ?? ''}`).join('&');
    asked.push(query);
    const answer = answers[query];
    return answer
      ? Response.json(answer)
      : Response.json(
          { type: 'about:blank', title: 'Not found', status: 404, code: 'customer-api.inventory.not-found' },
          { status: 404, headers: { 'content-type': 'application/problem+json' } },
        );
  };
  return { asked, client: createInventoryClient({ baseUrl: 'http://api.test', apiKey: 'k', fetch }) };
}

describe('traceLotAll', () => {
  it("follows the traced lot's own continuation and each truncated node's, grafting the answers where they belong", async () => {
    const { asked, client } = cannedApi({
      // The first answer: S1 listed but not followed; the traced lot's builds after S1 cut.
      'sku=COMP&lot=C1&depth=3&cursor=': trace('COMP', 'C1', 3, [node('SUB', 'S1', { depth: 2, cursor: null })], { depth: 3, cursor: 'after-S1' }),
      'sku=COMP&lot=C1&depth=3&cursor=after-S1': trace('COMP', 'C1', 3, [node('SUB', 'S2')]),
      // S1's children, themselves cut after F1.
      'sku=SUB&lot=S1&depth=2&cursor=': trace('SUB', 'S1', 2, [node('FIN', 'F1')], { depth: 2, cursor: 'after-F1' }),
      'sku=SUB&lot=S1&depth=2&cursor=after-F1': trace('SUB', 'S1', 2, [node('FIN', 'F2')]),
    });

    const whole = await traceLotAll(client, { sku: 'COMP', lot: 'C1', direction: 'forward', depth: 3 });

    const shape = (nodes: readonly LotTraceNode[]): unknown =>
      nodes.map((child) => ({ [`${child.sku}/${child.lot}`]: shape(child.children), truncated: child.truncated }));
    expect(shape(whole.nodes)).toEqual([
      {
        'SUB/S1': [
          { 'FIN/F1': [], truncated: false },
          { 'FIN/F2': [], truncated: false },
        ],
        truncated: false,
      },
      { 'SUB/S2': [], truncated: false },
    ]);
    expect(whole).toMatchObject({ truncated: false, continuation: null, nodeCount: 4 });
    expect(asked).toHaveLength(4);
  });
});
