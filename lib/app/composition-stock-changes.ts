import { writeChainDependencies } from './composition-writes.ts';
import { requiredEnv } from '../platform/config/env.ts';
import { bindOperation, type OperationContract } from '../platform/contracts/operation.ts';
import { StockChangeCommand, type ChangeLineInput, type StockChangeKindSpec } from '../stock/domain/changes/command.ts';
import type { StockChange } from '../stock/domain/changes/change.ts';
import { commitStockChange } from '../stock/domain/changes/commit.ts';
import { createOperationHandler, type Commit, type ReadRouteInput } from '../platform/http/chain.ts';
import type { RouteDefinition } from '../platform/contracts/route-types.ts';
import { stockChangePorts } from '../stock/store/stock-change-ports.ts';
import { TABLES } from '../platform/storage/tables.ts';

/**
 * The handler of a stock write over JSON (docs/inventory.md "Writing stock over JSON"): the body
 * as the kind's input, the change decided and committed with the idempotency record, decided
 * again after a lost race, its new records created first when they do not fit (commit.ts).
 */
export function stockChangeHandler<R extends RouteDefinition & { method: 'POST' }, C extends OperationContract, Input extends { lines: ChangeLineInput[] }>(
  route: R,
  contract: C,
  spec: StockChangeKindSpec<Input>,
  inputOf: (body: ReadRouteInput<C>['body']) => Input,
) {
  const ports = stockChangePorts(requiredEnv(TABLES.inventory.envVar));
  const command = new StockChangeCommand(ports, spec);
  return createOperationHandler(bindOperation(route, contract), writeChainDependencies, async (input) => {
    // A POST route's input has `commit`; the conditional type cannot see that through the generic route.
    const { body, principal, commit } = input as ReadRouteInput<C> & { commit: Commit };
    return commitStockChange(
      (precreated) =>
        commit(
          () => command.apply(principal.organizationId, inputOf(body), precreated),
          (change: StockChange) => ({ status: 201, json: change, headers: { Location: `/v1/stock/changes/${change.id}` } }),
        ),
      (records) => ports.createRecords(principal.organizationId, records),
    );
  });
}
