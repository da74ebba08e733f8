import * as z from '../../platform/contracts/zod.ts';
import { LOT_TRACE_DEFAULT_DEPTH, LOT_TRACE_MAX_DEPTH } from '../domain/trace-lot.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';
import { cursorParam, int32String } from '../../platform/contracts/primitives.ts';

/** GET /v1/lots/trace (docs/inventory.md "Tracing a lot"). */
export const traceLotContract = defineOperation({
  operationId: 'traceLot',
  request: {
    query: z.strictObject({
      sku: z.string().check(z.minLength(1), z.maxLength(200), z.meta({ description: 'The item, by sku (case-sensitive); it must be tracked by lot.' })),
      lot: z.string().check(z.minLength(1), z.maxLength(200), z.meta({ description: 'The lot of that item to trace.' })),
      direction: z.enum(['forward', 'backward']).check(
        z.meta({
          description:
            '`forward`: the builds that consumed the lot and the lots they produced; `backward`: the builds that produced it and the lots they consumed.',
        }),
      ),
      depth: z
        ._default(
          z.optional(
            z.pipe(
              int32String,
              z
                .number()
                .check(
                  z.int(),
                  z.minimum(1, { message: 'Must be at least 1.' }),
                  z.maximum(LOT_TRACE_MAX_DEPTH, { message: `Must be at most ${LOT_TRACE_MAX_DEPTH}.` }),
                ),
            ),
          ),
          LOT_TRACE_DEFAULT_DEPTH,
        )
        .check(z.meta({ description: `Levels of builds to follow: 1 to ${LOT_TRACE_MAX_DEPTH}, default ${LOT_TRACE_DEFAULT_DEPTH}.` })),
      cursor: z.optional(cursorParam).check(
        z.meta({
          description:
            "A continuation's `cursor`: the lot's children after those a truncated response held. Send it with that continuation's sku, lot and depth, and the same direction.",
        }),
      ),
    }),
  },
});
