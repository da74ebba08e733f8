import { parseArgs } from 'node:util';
import type { ApiKeyRecord } from '../lib/platform/auth/api-key.ts';
import { physicalTableName, TABLES } from '../lib/platform/storage/tables.ts';
import type { AwsStack } from './aws-stack/index.ts';
import { runningServer, stateDirectory } from './state.ts';

/**
 * `npm run --silent keys -- <create|list|revoke> …`: API key management. Targets the local
 * stack (through a running `npm start`, or by starting the stack briefly), or a deployed stage
 * with `--stage <name>` and the usual AWS credentials. Human text goes to stderr except the
 * requested output, so `--json` prints exactly one JSON object on stdout.
 */

const USAGE = `Usage:
  keys create --org <orgId> --name <name> --scopes <scope,scope|all> [--expires <ISO date-time>] [--json] [--stage <stage>]
  keys list --org <orgId> [--json] [--stage <stage>]
  keys revoke <keyId> [--json] [--stage <stage>]`;

class UsageError extends Error {}

function publicView(record: ApiKeyRecord) {
  return {
    id: record.keyId,
    organizationId: record.organizationId,
    name: record.name,
    scopes: record.scopes,
    createdAt: record.createdAt,
    revokedAt: record.revokedAt,
    expiresAt: record.expiresAt,
  };
}

async function connect(stage: string | undefined): Promise<{ environment: string; stop: () => Promise<void> }> {
  if (stage) {
    if (!/^[a-z][a-z0-9-]{0,20}$/.test(stage)) throw new UsageError(`Invalid stage '${stage}'.`);
    for (const id of ['keys', 'events', 'audit'] as const) {
      process.env[TABLES[id].envVar] ??= physicalTableName(`customer-api-${stage}`, id);
    }
    return { environment: stage === 'prod' ? 'live' : stage.replaceAll('-', '').slice(0, 16), stop: async () => {} };
  }
  const stateDir = stateDirectory();
  const server = runningServer(stateDir);
  if (server) {
    Object.assign(process.env, server.env);
    return { environment: 'local', stop: async () => {} };
  }
  const { startAwsStack } = await import('./aws-stack/index.ts');
  const stack: AwsStack = await startAwsStack({ stateDir });
  Object.assign(process.env, stack.env);
  return { environment: 'local', stop: () => stack.stop() };
}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      org: { type: 'string' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      expires: { type: 'string' },
      stage: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [command, ...rest] = positionals;
  if (!command || !['create', 'list', 'revoke'].includes(command)) throw new UsageError('Missing or unknown command.');

  const connection = await connect(values.stage);
  try {
    // The store reads endpoints and table names from the environment set by `connect`.
    const { keyRegistry } = await import('./key-registry.ts');
    const { createKey } = await import('../lib/platform/auth/manage-keys.ts');
    const store = keyRegistry();
    const print = (human: string, json: unknown) => process.stdout.write(values.json ? `${JSON.stringify(json)}\n` : `${human}\n`);

    if (command === 'create') {
      if (!values.org || !values.name || !values.scopes) throw new UsageError('create needs --org, --name and --scopes.');
      const { key, record } = await createKey(store, {
        organizationId: values.org,
        name: values.name,
        scopes: values.scopes
          .split(',')
          .map((scope) => scope.trim())
          .filter(Boolean),
        expiresAt: values.expires,
        environment: connection.environment,
      });
      print(`Created ${record.keyId} for ${record.organizationId} with scopes ${record.scopes.join(',')}.\nKey (shown once, store it now):\n${key}`, {
        id: record.keyId,
        key,
        organizationId: record.organizationId,
        name: record.name,
        scopes: record.scopes,
        expiresAt: record.expiresAt,
      });
    } else if (command === 'list') {
      if (!values.org) throw new UsageError('list needs --org.');
      const records = (await store.listByOrganization(values.org)).map(publicView);
      const lines = records.map(
        (r) =>
          `${r.id}  ${r.name}  ${r.scopes.join(',')}  created ${r.createdAt}${r.revokedAt ? `  revoked ${r.revokedAt}` : ''}${r.expiresAt ? `  expires ${r.expiresAt}` : ''}`,
      );
      print(lines.length > 0 ? lines.join('\n') : `No keys for ${values.org}.`, { data: records });
    } else {
      const keyId = rest[0];
      if (!keyId) throw new UsageError('revoke needs a key id.');
      const record = await store.revoke(keyId, new Date().toISOString());
      if (!record) throw new UsageError(`No key ${keyId}.`);
      print(`Revoked ${record.keyId} at ${record.revokedAt}.`, publicView(record));
    }
  } finally {
    await connection.stop();
  }
}

run(process.argv.slice(2)).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`keys: ${message}\n${error instanceof UsageError ? `${USAGE}\n` : ''}`);
  process.exitCode = error instanceof UsageError || (error as Error).name === 'KeyManagementError' ? 2 : 1;
});
