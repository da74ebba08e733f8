import * as z from '../../platform/contracts/zod.ts';

/** The success body of GET /v1/lots/trace, for OpenAPI and the tests (lib/app/operations.ts); no function imports it. */

const continuationSchema = z
  .object({
    depth: z.number().check(z.int()),
    cursor: z.nullable(z.string()),
  })
  .check(
    z.meta({
      id: 'LotTraceContinuation',
      description:
        "The children the node cap cut: send the trace again for this node's sku and lot (the response's own, for the traced lot), the same direction, this depth and this cursor (none when null); its `nodes` are the missing children.",
    }),
  );

const nodeFields = {
  itemId: z.string(),
  sku: z.nullable(z.string()).check(z.meta({ description: 'Null only for an item no longer stored.' })),
  lot: z.nullable(z.string()).check(z.meta({ description: 'Null: the item is not tracked by lot; the trace does not follow it further.' })),
  quantity: z.number().check(z.meta({ description: 'Forward: the quantity the build produced; backward: the quantity of this lot the build consumed.' })),
  buildId: z.string(),
  bomId: z.string(),
  builtAt: z.string(),
  truncated: z.boolean().check(z.meta({ description: 'The node cap cut its children: `continuation` says how to read the rest.' })),
  continuation: z.nullable(continuationSchema),
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
  continuation: { depth: number; cursor: string | null } | null;
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
    truncated: z.boolean().check(
      z.meta({
        description: 'The response reached 1000 nodes: the truncated nodes (and `continuation`, for the traced lot itself) say how to read the rest.',
      }),
    ),
    continuation: z.nullable(continuationSchema).check(z.meta({ description: "Set when the traced lot's own builds were cut." })),
    nodes: z.array(lotTraceNodeSchema),
  })
  .check(z.meta({ id: 'LotTrace' }));
