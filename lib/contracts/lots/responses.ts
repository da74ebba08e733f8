import * as z from '../zod.ts';

/** The success body of GET /v1/lots/trace, for OpenAPI and the tests (lib/contracts/operations.ts); no function imports it. */

const nodeFields = {
  itemId: z.string(),
  sku: z.nullable(z.string()).check(z.meta({ description: 'Null only for an item no longer stored.' })),
  lot: z.nullable(z.string()).check(z.meta({ description: 'Null: the item is not tracked by lot; the trace does not follow it further.' })),
  quantity: z.number().check(z.meta({ description: 'Forward: the quantity the build produced; backward: the quantity of this lot the build consumed.' })),
  buildId: z.string(),
  bomId: z.string(),
  builtAt: z.string(),
  truncated: z.boolean().check(z.meta({ description: 'The node cap cut its children: a continuation of the response lists the rest.' })),
};

/** A node of the tree as it is sent: a recursive schema needs its type spelled out. */
interface LotTraceNodeWire {
  itemId: string;
  sku: string | null;
  lot: string | null;
  quantity: number;
  buildId: string;
  bomId: string;
  builtAt: string;
  truncated: boolean;
  children: LotTraceNodeWire[];
}

export const lotTraceNodeSchema: z.ZodMiniType<LotTraceNodeWire> = z
  .object({
    ...nodeFields,
    children: z.array(z.lazy(() => lotTraceNodeSchema)),
  })
  .check(z.meta({ id: 'LotTraceNode' }));

export const lotTraceSchema = z
  .object({
    sku: z.string(),
    itemId: z.string(),
    lot: z.string(),
    direction: z.enum(['forward', 'backward']),
    depth: z.number().check(z.int()),
    nodeCount: z.number().check(z.int()),
    truncated: z.boolean().check(z.meta({ description: 'The response reached 1000 nodes: `continuations` are the requests that list the rest.' })),
    continuations: z.array(
      z.object({
        sku: z.nullable(z.string()),
        itemId: z.string(),
        lot: z.string(),
        depth: z.number().check(z.int()),
        cursor: z.nullable(z.string()),
      }),
    ),
    nodes: z.array(lotTraceNodeSchema),
  })
  .check(z.meta({ id: 'LotTrace' }));
