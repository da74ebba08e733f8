import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stage, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CustomerApiStack } from '../../infra/customer-api-stack.ts';
import { onDemandEsbuildOptions } from '../../infra/on-demand-modules.ts';
import { resolveStageConfig } from '../../infra/stages.ts';
import { ENCODER_MODULES } from '../../lib/labels/domain/encoder-modules.ts';
import { routeById } from '../../lib/app/routes.ts';
import { CDK_JSON_CONTEXT, resourceById } from './template-helpers.ts';

// What `cdk deploy` uploads for GET /v1/barcodes: the synthesized asset directory of a stack
// bundled for real (the barcode route alone, so only its function, $default and the API
// reference are built). ApiFunction's afterBundling step (infra/on-demand-modules.ts) must have
// put every format's encoder file beside the entry, byte for byte the build the bundle tests and
// test/integration/lambda-bundle.test.ts invoke.

const route = routeById('renderBarcode');

describe('the synthesized GET /v1/barcodes asset', () => {
  let app: App;
  let assetDirectory = '';

  beforeAll(() => {
    // Prepare + Act (shared): one bundled synth.
    app = new App({ context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': ['**'], 'aws:cdk:enable-asset-metadata': true } });
    const config = resolveStageConfig((key) => ({ stage: 'barcodes' })[key]);
    const stack = new CustomerApiStack(app, 'CustomerApi-barcode-asset', { config, routes: [route], workers: [] });
    const template = Template.fromStack(stack);
    const fn = stack.routeFunctions.get(route.operationId);
    if (!fn) throw new Error('no barcode function');
    const assetPath = resourceById(template, stack.getLogicalId(fn.function.node.defaultChild as CfnElement)).Metadata?.['aws:asset:path'];
    if (typeof assetPath !== 'string') throw new Error('the barcode function has no asset path');
    assetDirectory = join(Stage.of(stack)?.outdir ?? '', assetPath);
  }, 240_000);

  afterAll(() => {
    rmSync(app.outdir, { recursive: true, force: true });
  });

  it('holds the entry, built from the barcode handler without bwip-js', () => {
    // Act
    const { sources } = JSON.parse(readFileSync(join(assetDirectory, 'index.mjs.map'), 'utf8')) as { sources: string[] };

    // Assess
    expect(sources.some((source) => source.endsWith(route.handler))).toBe(true);
    expect(sources.filter((source) => source.includes('node_modules/bwip-js/'))).toEqual([]);
  });

  it('holds one encoder file per format, each equal to the tested build', async () => {
    // Prepare
    const options = onDemandEsbuildOptions(route.handler);
    if (!options) throw new Error(`${route.handler} has no on-demand modules`);
    const built = await build({ ...options, logLevel: 'error' });
    const expected = new Map(
      built.outputFiles.filter((file) => file.path.endsWith('.mjs')).map((file) => [file.path.slice(file.path.lastIndexOf('/') + 1), file.contents]),
    );

    // Act
    const deployed = readdirSync(join(assetDirectory, 'encoders')).filter((file) => file.endsWith('.mjs'));

    // Assess
    expect(deployed.sort()).toEqual(
      Object.values(ENCODER_MODULES)
        .map((name) => `${name}.mjs`)
        .sort(),
    );
    for (const file of deployed) {
      expect(readFileSync(join(assetDirectory, 'encoders', file)).equals(Buffer.from(expected.get(file) ?? [])), file).toBe(true);
    }
  }, 60_000);
});
