import { documentClient } from '../../lib/platform/aws/dynamodb-client.ts';

/**
 * Counts the actions of every TransactWriteItems this process commits through the document client
 * (docs/performance.md "Actions per stock row"): how many actions each committed transaction took
 * and which tables they touched. The action-count test and the bench read it; nothing on the
 * request path does (a function that never calls `meterTransactions` adds no middleware).
 */

export interface MeteredTransaction {
  actions: number;
  /** Actions per table name. */
  tables: Record<string, number>;
}

export interface TransactionMeter {
  /** The transactions committed since the meter started (or was last cleared), oldest first. */
  readonly committed: readonly MeteredTransaction[];
  clear(): void;
  stop(): void;
}

interface TransactInput {
  TransactItems?: ReadonlyArray<Record<string, { TableName?: string } | undefined>>;
}

function tablesOf(input: TransactInput): Record<string, number> {
  const tables: Record<string, number> = {};
  for (const action of input.TransactItems ?? []) {
    for (const operation of Object.values(action)) {
      const table = operation?.TableName;
      if (table) tables[table] = (tables[table] ?? 0) + 1;
    }
  }
  return tables;
}

let meters = 0;

export function meterTransactions(): TransactionMeter {
  const committed: MeteredTransaction[] = [];
  const name = `transaction-meter-${(meters += 1)}`;
  documentClient.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const input = args.input as TransactInput;
      // Only transactions, counted once they committed (a cancelled one throws above).
      if (Array.isArray(input.TransactItems)) committed.push({ actions: input.TransactItems.length, tables: tablesOf(input) });
      return result;
    },
    { step: 'initialize', name },
  );
  return {
    committed,
    clear: () => void committed.splice(0),
    stop: () => void documentClient.middlewareStack.remove(name),
  };
}
