import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The layering is enforced by eslint.config.js; these probes prove each rule fires where it should
// (and that rules sharing a file add up instead of replacing one another) and stays quiet on the
// imports the layering allows. Probe files do not exist: lintText only needs their path.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const eslint = new ESLint({ cwd: ROOT });

type Form = 'value' | 'type' | 're-export';

interface Probe {
  file: string;
  specifier: string;
  form?: Form;
}

interface ForbiddenProbe extends Probe {
  rules: string[];
}

function probeSource(specifier: string, form: Form): string {
  if (form === 'type') return `import type { Probe } from '${specifier}';\nexport type Used = Probe;\n`;
  if (form === 're-export') return `export { probe } from '${specifier}';\n`;
  return `import { probe } from '${specifier}';\nexport const used = probe;\n`;
}

function withDefaultForm<T extends Probe>(probe: T): T & { form: Form } {
  return { ...probe, form: probe.form ?? 'value' };
}

async function ruleIdsReported({ file, specifier, form = 'value' }: Probe): Promise<(string | null)[]> {
  const [result] = await eslint.lintText(probeSource(specifier, form), { filePath: file });
  return (result?.messages ?? []).map((message) => message.ruleId).sort();
}

const DOMAIN = 'layering/domain-is-pure';
const AWS_SDK = 'layering/aws-sdk-only-in-store';
const TEST_OR_BENCH = 'layering/no-test-or-bench-imports';
const WORKERS = 'layering/workers-are-not-http';
const DOMAIN_BELOW_CONTRACTS = 'layering/domain-never-imports-contracts';
const CONTRACTS_ABOVE_HTTP = 'layering/contracts-never-import-http';

const forbidden: ForbiddenProbe[] = [
  { file: 'lib/domain/probe.ts', specifier: '../store/keys.ts', rules: [DOMAIN] },
  { file: 'lib/domain/imports/probe.ts', specifier: '../../store/import-jobs-store.ts', rules: [DOMAIN] },
  { file: 'lib/domain/probe.ts', specifier: '../../lib/platform/dynamo/keys.ts', form: 'type', rules: [DOMAIN] },
  { file: 'lib/domain/probe.ts', specifier: '../store/tables.ts', form: 're-export', rules: [DOMAIN] },
  { file: 'lib/domain/probe.ts', specifier: '../http/problem.ts', rules: [DOMAIN] },
  { file: 'lib/domain/probe.ts', specifier: '../../functions/workers/sweep-import-jobs.ts', rules: [DOMAIN] },
  { file: 'lib/domain/probe.ts', specifier: '../composition.ts', rules: [DOMAIN] },
  { file: 'lib/domain/auth/probe.ts', specifier: '../../composition-writes.ts', rules: [DOMAIN] },
  { file: 'lib/domain/probe.ts', specifier: '../../infra/stages.ts', rules: [DOMAIN] },
  { file: 'lib/domain/probe.ts', specifier: '../../local/state.ts', rules: [DOMAIN] },
  { file: 'lib/domain/probe.ts', specifier: '@middy/core', rules: [DOMAIN] },
  { file: 'lib/domain/probe.ts', specifier: '@aws-sdk/client-s3', rules: [AWS_SDK, DOMAIN] },
  { file: 'lib/domain/probe.ts', specifier: '../../test/support/api.ts', rules: [TEST_OR_BENCH] },
  { file: 'lib/domain/events/probe.ts', specifier: '../../contracts/events.ts', form: 'type', rules: [DOMAIN_BELOW_CONTRACTS] },
  { file: 'lib/domain/labels/probe.ts', specifier: '../../contracts/labels.ts', rules: [DOMAIN_BELOW_CONTRACTS] },
  { file: 'lib/domain/probe.ts', specifier: '../contracts/event-constants.ts', form: 're-export', rules: [DOMAIN_BELOW_CONTRACTS] },
  { file: 'lib/contracts/probe.ts', specifier: '../http/multipart.ts', form: 'type', rules: [CONTRACTS_ABOVE_HTTP] },
  { file: 'lib/contracts/imports/probe.ts', specifier: '../../http/headers.ts', rules: [CONTRACTS_ABOVE_HTTP] },
  { file: 'lib/contracts/probe.ts', specifier: '../../functions/http/imports/submit-import-job.ts', form: 're-export', rules: [CONTRACTS_ABOVE_HTTP] },
  { file: 'lib/http/probe.ts', specifier: '@aws-sdk/lib-dynamodb', rules: [AWS_SDK] },
  { file: 'lib/config/probe.ts', specifier: '@aws-sdk/client-dynamodb', rules: [AWS_SDK] },
  { file: 'lib/contracts/probe.ts', specifier: '@aws-sdk/client-s3', form: 'type', rules: [AWS_SDK] },
  { file: 'lib/probe.ts', specifier: '@aws-sdk/client-sqs', rules: [AWS_SDK] },
  { file: 'functions/http/imports/probe.ts', specifier: '@aws-sdk/client-s3', rules: [AWS_SDK] },
  { file: 'functions/workers/probe.ts', specifier: '../../lib/platform/http/chain.ts', rules: [WORKERS] },
  { file: 'functions/workers/probe.ts', specifier: '../http/imports/submit-import-job.ts', rules: [WORKERS] },
  { file: 'functions/workers/probe.ts', specifier: '@aws-sdk/client-sqs', rules: [AWS_SDK] },
  { file: 'functions/workers/probe.ts', specifier: '../../test/support/lambda-events.ts', rules: [TEST_OR_BENCH] },
  { file: 'lib/store/probe.ts', specifier: '../../test/support/api.ts', rules: [TEST_OR_BENCH] },
  { file: 'lib/http/probe.ts', specifier: '../../bench/raw-loader.ts', rules: [TEST_OR_BENCH] },
  { file: 'local/probe.ts', specifier: '../test/support/api.ts', rules: [TEST_OR_BENCH] },
  { file: 'scripts/probe.ts', specifier: '../bench/run.ts', rules: [TEST_OR_BENCH] },
  { file: 'infra/probe.ts', specifier: '../test/infra/template-helpers.ts', rules: [TEST_OR_BENCH] },
  { file: 'test/unit/probe.test.ts', specifier: '../../bench/raw-loader.ts', rules: [TEST_OR_BENCH] },
  { file: 'bench/probe.ts', specifier: '../test/support/api.ts', rules: [TEST_OR_BENCH] },
];

const allowed: Probe[] = [
  { file: 'lib/domain/probe.ts', specifier: 'zod' },
  { file: 'lib/domain/imports/probe.ts', specifier: '../errors.ts' },
  { file: 'lib/domain/events/probe.ts', specifier: './types.ts', form: 'type' },
  { file: 'lib/contracts/probe.ts', specifier: '../domain/events/types.ts' },
  { file: 'lib/contracts/probe.ts', specifier: './zod.ts' },
  { file: 'lib/http/probe.ts', specifier: '../contracts/uploaded-file.ts', form: 'type' },
  { file: 'lib/store/probe.ts', specifier: '@aws-sdk/lib-dynamodb' },
  { file: 'lib/store/probe.ts', specifier: '../domain/write/ports.ts', form: 'type' },
  { file: 'lib/http/probe.ts', specifier: '../domain/errors.ts' },
  { file: 'lib/http/middleware/probe.ts', specifier: '../../log.ts' },
  { file: 'functions/http/imports/probe.ts', specifier: '../../../lib/platform/http/chain.ts' },
  { file: 'functions/http/imports/probe.ts', specifier: '../../../lib/platform/jobs/job-queue.ts' },
  { file: 'functions/workers/probe.ts', specifier: '../../lib/platform/observability/log.ts' },
  { file: 'functions/workers/probe.ts', specifier: '../../lib/imports/domain/pipeline/process-job.ts' },
  { file: 'functions/workers/probe.ts', specifier: '../../lib/platform/jobs/job-queue.ts' },
  { file: 'infra/probe.ts', specifier: '../lib/platform/dynamo/tables.ts' },
  { file: 'local/probe.ts', specifier: '@aws-sdk/client-sqs' },
  { file: 'local/probe.ts', specifier: '../functions/workers/sweep-import-jobs.ts' },
  { file: 'test/integration/probe.test.ts', specifier: '@aws-sdk/client-dynamodb' },
  { file: 'test/integration/probe.test.ts', specifier: '../support/api.ts' },
  { file: 'bench/probe.ts', specifier: './raw-loader.ts' },
];

describe('lint layering', () => {
  it.each(forbidden.map(withDefaultForm))('$file, $form import of $specifier: reported by $rules', async (probe) => {
    // Prepare
    const expected = [...probe.rules].sort();

    // Act
    const reported = await ruleIdsReported(probe);

    // Assess
    expect(reported).toEqual(expected);
  });

  it.each(allowed.map(withDefaultForm))('$file, $form import of $specifier: not reported', async (probe) => {
    // Prepare
    const expected: string[] = [];

    // Act
    const reported = await ruleIdsReported(probe);

    // Assess
    expect(reported).toEqual(expected);
  });
});
