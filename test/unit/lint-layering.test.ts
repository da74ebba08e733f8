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
const AWS_SDK = 'layering/aws-sdk-only-in-adapters';
const TEST_OR_BENCH = 'layering/no-test-or-bench-imports';
const WORKERS = 'layering/workers-are-not-http';
const DOMAIN_BELOW_CONTRACTS = 'layering/domain-never-imports-contracts';
const CONTRACTS_ABOVE_HTTP = 'layering/contracts-never-import-http';
const HTTP_ABOVE_STORE = 'layering/http-never-imports-store';
const DOORS = 'layering/area-doors';
const PLATFORM = 'layering/platform-knows-no-area';
const INFRA = 'layering/infra-reads-declarations';

const forbidden: ForbiddenProbe[] = [
  // A domain is pure: no adapter, no HTTP, no assembly, no tooling.
  { file: 'lib/stock/domain/probe.ts', specifier: '../store/stock-store.ts', rules: [DOMAIN] },
  { file: 'lib/imports/domain/pipeline/probe.ts', specifier: '../../store/import-jobs-store.ts', rules: [DOMAIN] },
  { file: 'lib/stock/domain/probe.ts', specifier: '../../platform/dynamo/keys.ts', form: 'type', rules: [DOMAIN] },
  { file: 'lib/stock/domain/probe.ts', specifier: '../../platform/storage/../aws/clients.ts', form: 're-export', rules: [DOMAIN] },
  { file: 'lib/webhooks/domain/probe.ts', specifier: '../transport/webhook-sender.ts', rules: [DOMAIN] },
  { file: 'lib/labels/domain/probe.ts', specifier: '../../platform/http/problem.ts', rules: [DOMAIN] },
  { file: 'lib/stock/domain/probe.ts', specifier: '../../../functions/workers/sweep-import-jobs.ts', rules: [DOMAIN] },
  { file: 'lib/stock/domain/probe.ts', specifier: '../../app/composition.ts', rules: [DOMAIN, PLATFORM] },
  { file: 'lib/stock/domain/probe.ts', specifier: '../../../infra/stages.ts', rules: [DOMAIN] },
  { file: 'lib/stock/domain/probe.ts', specifier: '../../../local/state.ts', rules: [DOMAIN] },
  { file: 'lib/stock/domain/probe.ts', specifier: '@middy/core', rules: [DOMAIN] },
  { file: 'lib/stock/domain/probe.ts', specifier: '@aws-sdk/client-s3', rules: [AWS_SDK, DOMAIN] },
  { file: 'lib/platform/core/probe.ts', specifier: '../dynamo/entity.ts', rules: [DOMAIN] },
  { file: 'lib/platform/write/probe.ts', specifier: '../aws/dynamodb-client.ts', form: 'type', rules: [DOMAIN] },
  { file: 'lib/stock/domain/probe.ts', specifier: '../../../test/support/api.ts', rules: [TEST_OR_BENCH] },
  // A domain derives no fact from contracts.
  { file: 'lib/events/domain/probe.ts', specifier: '../contracts/events.ts', form: 'type', rules: [DOMAIN_BELOW_CONTRACTS] },
  { file: 'lib/labels/domain/probe.ts', specifier: '../contracts.ts', rules: [DOMAIN_BELOW_CONTRACTS] },
  { file: 'lib/stock/domain/probe.ts', specifier: '../contracts/changes.ts', form: 're-export', rules: [DOMAIN_BELOW_CONTRACTS] },
  // Contracts sit below the HTTP layer.
  { file: 'lib/imports/contracts/probe.ts', specifier: '../../platform/http/multipart.ts', form: 'type', rules: [CONTRACTS_ABOVE_HTTP] },
  { file: 'lib/platform/contracts/probe.ts', specifier: '../http/headers.ts', rules: [CONTRACTS_ABOVE_HTTP, DOMAIN] },
  { file: 'lib/labels/contracts.ts', specifier: '../../functions/http/imports/submit-import-job.ts', form: 're-export', rules: [CONTRACTS_ABOVE_HTTP] },
  // The HTTP chain never reaches storage itself.
  { file: 'lib/platform/http/probe.ts', specifier: '../dynamo/transaction-writer.ts', rules: [HTTP_ABOVE_STORE] },
  { file: 'lib/platform/http/middleware/probe.ts', specifier: '../../aws/clients.ts', form: 'type', rules: [HTTP_ABOVE_STORE] },
  { file: 'lib/platform/http/probe.ts', specifier: '../../imports/store/import-jobs-store.ts', rules: [HTTP_ABOVE_STORE, PLATFORM] },
  // AWS only through the adapters.
  { file: 'lib/platform/http/probe.ts', specifier: '@aws-sdk/lib-dynamodb', rules: [AWS_SDK] },
  { file: 'lib/platform/config/probe.ts', specifier: '@aws-sdk/client-dynamodb', rules: [AWS_SDK] },
  { file: 'lib/stock/contracts/probe.ts', specifier: '@aws-sdk/client-s3', form: 'type', rules: [AWS_SDK] },
  { file: 'lib/app/probe.ts', specifier: '@aws-sdk/client-sqs', rules: [AWS_SDK] },
  { file: 'lib/webhooks/transport/probe.ts', specifier: '@aws-sdk/client-sqs', rules: [AWS_SDK] },
  { file: 'functions/http/imports/probe.ts', specifier: '@aws-sdk/client-s3', rules: [AWS_SDK] },
  // Areas meet only at doors; the platform knows no area; nothing below imports the assembly.
  { file: 'lib/stock/domain/probe.ts', specifier: '../../inventory/domain/item.ts', rules: [DOORS] },
  { file: 'lib/builds/domain/probe.ts', specifier: '../../boms/domain/bom.ts', form: 'type', rules: [DOORS] },
  { file: 'lib/exports/domain/probe.ts', specifier: '../../imports/contracts/responses.ts', form: 're-export', rules: [DOORS, DOMAIN_BELOW_CONTRACTS] },
  { file: 'lib/stock/store/probe.ts', specifier: '../../inventory/store/inventory-store.ts', rules: [DOORS] },
  { file: 'lib/stock/domain/probe.ts', specifier: '../../inventory/store/index.ts', rules: [DOORS, DOMAIN] },
  { file: 'lib/stock/domain/probe.ts', specifier: '../index.ts', rules: [DOORS] },
  { file: 'lib/inventory/store/probe.ts', specifier: './index.ts', rules: [DOORS] },
  { file: 'lib/platform/jobs/probe.ts', specifier: '../../imports/index.ts', rules: [PLATFORM] },
  { file: 'lib/platform/core/probe.ts', specifier: '../../app/routes.ts', form: 'type', rules: [DOMAIN, PLATFORM] },
  { file: 'lib/boms/routes.ts', specifier: '../app/routes.ts', rules: [PLATFORM] },
  // infra/ reads declarations, never runtime code.
  { file: 'infra/probe.ts', specifier: '../lib/platform/observability/metrics.ts', rules: [INFRA] },
  { file: 'infra/probe.ts', specifier: '../lib/exports/domain/job.ts', rules: [INFRA] },
  { file: 'infra/probe.ts', specifier: '../lib/platform/dynamo/entities.ts', form: 'type', rules: [INFRA] },
  // Workers are not HTTP; nothing imports tests or the bench.
  { file: 'functions/workers/probe.ts', specifier: '../../lib/platform/http/chain.ts', rules: [WORKERS] },
  { file: 'functions/workers/probe.ts', specifier: '../http/imports/submit-import-job.ts', rules: [WORKERS] },
  { file: 'functions/workers/probe.ts', specifier: '@aws-sdk/client-sqs', rules: [AWS_SDK] },
  { file: 'functions/workers/probe.ts', specifier: '../../test/support/lambda-events.ts', rules: [TEST_OR_BENCH] },
  { file: 'lib/stock/store/probe.ts', specifier: '../../../test/support/api.ts', rules: [TEST_OR_BENCH] },
  { file: 'lib/platform/http/probe.ts', specifier: '../../../bench/raw-loader.ts', rules: [TEST_OR_BENCH] },
  { file: 'lib/app/probe.ts', specifier: '../../bench/models/transaction-meter.ts', rules: [TEST_OR_BENCH] },
  { file: 'local/probe.ts', specifier: '../test/support/api.ts', rules: [TEST_OR_BENCH] },
  { file: 'local/probe.ts', specifier: '../bench/models/transaction-meter.ts', rules: [TEST_OR_BENCH] },
  { file: 'scripts/probe.ts', specifier: '../bench/run.ts', rules: [TEST_OR_BENCH] },
  { file: 'infra/probe.ts', specifier: '../test/infra/template-helpers.ts', rules: [TEST_OR_BENCH] },
  { file: 'test/unit/probe.test.ts', specifier: '../../bench/raw-loader.ts', rules: [TEST_OR_BENCH] },
  { file: 'bench/probe.ts', specifier: '../test/support/api.ts', rules: [TEST_OR_BENCH] },
];

const allowed: Probe[] = [
  { file: 'lib/stock/domain/probe.ts', specifier: 'zod' },
  { file: 'lib/stock/domain/changes/probe.ts', specifier: '../ledger.ts' },
  { file: 'lib/stock/domain/probe.ts', specifier: '../../platform/core/errors.ts' },
  { file: 'lib/stock/domain/probe.ts', specifier: '../../platform/write/ports.ts', form: 'type' },
  { file: 'lib/stock/domain/probe.ts', specifier: '../../inventory/index.ts' },
  { file: 'lib/builds/domain/probe.ts', specifier: '../../boms/index.ts', form: 'type' },
  { file: 'lib/stock/store/probe.ts', specifier: '../../inventory/store/index.ts' },
  { file: 'lib/stock/store/probe.ts', specifier: '../../inventory/index.ts', form: 're-export' },
  { file: 'lib/stock/store/probe.ts', specifier: '@aws-sdk/lib-dynamodb' },
  { file: 'lib/stock/store/probe.ts', specifier: '../../platform/dynamo/transaction-writer.ts', form: 'type' },
  { file: 'lib/events/contracts/probe.ts', specifier: '../../platform/events/types.ts' },
  { file: 'lib/events/contracts/probe.ts', specifier: '../../platform/contracts/zod.ts' },
  { file: 'lib/platform/http/probe.ts', specifier: '../contracts/uploaded-file.ts', form: 'type' },
  { file: 'lib/platform/http/probe.ts', specifier: '../core/errors.ts' },
  { file: 'lib/platform/http/middleware/probe.ts', specifier: '../../observability/log.ts' },
  { file: 'lib/platform/dynamo/probe.ts', specifier: '@aws-sdk/lib-dynamodb' },
  { file: 'lib/platform/aws/probe.ts', specifier: '@aws-sdk/client-sqs' },
  { file: 'lib/app/probe.ts', specifier: '../stock/store/stock-store.ts' },
  { file: 'lib/app/probe.ts', specifier: '../inventory/domain/item.ts', form: 'type' },
  { file: 'functions/http/imports/probe.ts', specifier: '../../../lib/platform/http/chain.ts' },
  { file: 'functions/http/imports/probe.ts', specifier: '../../../lib/platform/aws/job-queue.ts' },
  { file: 'functions/http/stock/probe.ts', specifier: '../../../lib/stock/domain/changes/command.ts' },
  { file: 'functions/workers/probe.ts', specifier: '../../lib/platform/observability/log.ts' },
  { file: 'functions/workers/probe.ts', specifier: '../../lib/imports/domain/pipeline/process-job.ts' },
  { file: 'functions/workers/probe.ts', specifier: '../../lib/platform/aws/job-queue.ts' },
  { file: 'infra/probe.ts', specifier: '../lib/platform/storage/tables.ts' },
  { file: 'infra/probe.ts', specifier: '../lib/app/workers.ts' },
  { file: 'infra/probe.ts', specifier: '../lib/boms/routes.ts' },
  { file: 'infra/probe.ts', specifier: '../lib/platform/observability/metric-names.ts' },
  { file: 'local/probe.ts', specifier: '@aws-sdk/client-sqs' },
  { file: 'local/probe.ts', specifier: '../functions/workers/sweep-import-jobs.ts' },
  { file: 'test/integration/probe.test.ts', specifier: '@aws-sdk/client-dynamodb' },
  { file: 'test/integration/probe.test.ts', specifier: '../support/api.ts' },
  { file: 'test/unit/write/probe.test.ts', specifier: '../../../bench/models/counter-contention-model.ts' },
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
