import { build, type Metafile } from 'esbuild';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/api-function.ts';
import { lambdaEsbuildOptions } from '../../infra/bundling.ts';
import { ROUTES } from '../../lib/routes.ts';

/**
 * What a read function carries, built exactly as the stack bundles it (infra/bundling.ts): its own
 * route's schemas and the DynamoDB client, never the multipart parser, S3 or SQS (they belong to
 * the functions that upload and enqueue) nor zod's translated error messages (only an
 * `import { z } from 'zod'` namespace object pulls them in; use `import * as z from 'zod'`).
 */

const FORBIDDEN: ReadonlyArray<readonly [string, RegExp]> = [
  ['@fastify/busboy', /node_modules\/@fastify\/busboy\//],
  ['@aws-sdk/client-s3', /node_modules\/@aws-sdk\/client-s3\//],
  ['@aws-sdk/client-sqs', /node_modules\/@aws-sdk\/client-sqs\//],
  ['zod locales other than en', /node_modules\/zod\/.*\/locales\/(?!en\.)[^/]+$/],
];

/** Files that put code into the bundle; `metafile.inputs` also lists files tree-shaking emptied. */
async function bundleInputs(entry: string): Promise<string[]> {
  const result = await build({ ...lambdaEsbuildOptions(join(REPO_ROOT, entry)), absWorkingDir: REPO_ROOT, logLevel: 'error' });
  const metafile: Metafile = result.metafile;
  return Object.values(metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs)
      .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
      .map(([input]) => input),
  );
}

function listEventsHandler(): string {
  const route = ROUTES.find((candidate) => candidate.operationId === 'listEvents');
  if (!route) throw new Error('listEvents is not in lib/routes.ts');
  return route.handler;
}

describe('the GET /v1/events bundle', () => {
  let inputs: string[] = [];

  beforeAll(async () => {
    inputs = await bundleInputs(listEventsHandler());
  }, 60_000);

  it('is built from functions/http/events/list-events.ts', () => {
    expect(listEventsHandler()).toBe('functions/http/events/list-events.ts');
    expect(inputs).toContain('functions/http/events/list-events.ts');
  });

  it.each(FORBIDDEN)('does not contain %s', (_name, pattern) => {
    expect(inputs.filter((input) => pattern.test(input))).toEqual([]);
  });

  it('carries no other route’s contract', () => {
    const contracts = inputs.filter((input) => input.startsWith('lib/contracts/'));
    expect(contracts.filter((input) => /imports|labels|audit|operations\.ts|openapi\.ts/.test(input))).toEqual([]);
  });
});
