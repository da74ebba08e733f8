import { ApiKeysStore } from '../lib/platform/dynamo/api-keys-store.ts';
import { TABLES } from '../lib/platform/storage/tables.ts';
import { TransactionWriter } from '../lib/platform/dynamo/transaction-writer.ts';

/** Key management against the tables named in the environment (local stack or a stage). */
export function keyRegistry(): ApiKeysStore {
  const table = (id: keyof typeof TABLES) => {
    const name = process.env[TABLES[id].envVar];
    if (!name) throw new Error(`${TABLES[id].envVar} is not set`);
    return name;
  };
  return new ApiKeysStore(table('keys'), new TransactionWriter({ events: table('events'), audit: table('audit') }));
}
