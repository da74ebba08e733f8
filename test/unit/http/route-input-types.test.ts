import { describe, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import type { OperationContract } from '../../../lib/platform/contracts/operation.ts';
import type { Commit, RouteHandler, RouteInput } from '../../../lib/platform/http/chain.ts';

/** Type-level only (`npm run typecheck` checks the `@ts-expect-error` lines; vitest the rest). */

const testContract = {
  operationId: 'testThing',
  request: { query: z.strictObject({ limit: z.string().transform(Number) }), headers: z.strictObject({ 'If-Match': z.string() }) },
} satisfies OperationContract;
type TestContract = typeof testContract;

type ReadInput = RouteInput<{ method: 'GET' }, TestContract>;
type WriteInput = RouteInput<{ method: 'PUT' }, TestContract>;

describe('RouteInput', () => {
  it('has commit on write routes only', () => {
    expectTypeOf<WriteInput>().toHaveProperty('commit').toEqualTypeOf<Commit>();
    expectTypeOf<ReadInput>().not.toHaveProperty('commit');
  });

  it('refuses a read handler that destructures commit', () => {
    // @ts-expect-error -- a GET route has no commit
    const readHandler: RouteHandler<{ method: 'GET' }, TestContract> = async ({ commit }) => ({ status: 200, json: typeof commit });
    expectTypeOf(readHandler).toBeFunction();
  });

  it('types query and headers from the contract', () => {
    expectTypeOf(testContract.operationId).toEqualTypeOf<string>();
    expectTypeOf<ReadInput['query']>().toEqualTypeOf<{ limit: number }>();
    expectTypeOf<WriteInput['headers']>().toEqualTypeOf<{ 'If-Match': string }>();
  });
});
