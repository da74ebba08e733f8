import { rmSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll } from 'vitest';
import { createCustomerApiStack, type CustomerApiStack } from '../../infra/customer-api-stack.ts';
import { CDK_JSON_CONTEXT } from './template-helpers.ts';

export interface Synthesized {
  stack: CustomerApiStack;
  template: Template;
}

/**
 * The stack synthesized with cdk.json's context plus `context`, without bundling (fast); call it
 * at the top of a test file: the CDK output directories are removed after the file's tests.
 */
export function stackSynthesizer(): (context: Record<string, unknown>) => Synthesized {
  const outdirs: string[] = [];
  afterAll(() => {
    for (const outdir of outdirs) rmSync(outdir, { recursive: true, force: true });
  });
  return (context) => {
    const app = new App({ context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [], ...context } });
    outdirs.push(app.outdir);
    const stack = createCustomerApiStack(app);
    return { stack, template: Template.fromStack(stack) };
  };
}
