import { rmSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import type { PolicyViolation } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomerApiStack } from '../../infra/customer-api-stack.ts';
import type { CustomerApiStack } from '../../infra/customer-api-stack.ts';
import { nagAcknowledgments } from '../../infra/nag-suppressions.ts';
import { CDK_JSON_CONTEXT } from './template-helpers.ts';

// cdk-nag's AwsSolutions pack over the synthesized stack (docs/operations.md#cdk-nag): no finding
// is left unacknowledged, every acknowledgment names its rule and a one-line reason, and each one
// still silences a finding (an acknowledgment nothing needs any more must go).

const outdirs: string[] = [];

afterAll(() => {
  for (const outdir of outdirs) rmSync(outdir, { recursive: true, force: true });
});

function synth(context: Record<string, unknown>): CustomerApiStack {
  const app = new App({ context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [], ...context } });
  outdirs.push(app.outdir);
  const stack = createCustomerApiStack(app);
  // Synthesizing first: policies and other lazy parts are complete when the rules read them.
  Template.fromStack(stack);
  return stack;
}

/** The pack's findings; `ignoringAcknowledgments` shows what the acknowledgments silence. */
function findings(stack: CustomerApiStack, options: { ignoringAcknowledgments?: boolean } = {}): PolicyViolation[] {
  const pack = new AwsSolutionsChecks();
  if (options.ignoringAcknowledgments) Object.defineProperty(pack, 'isAcknowledged', { value: () => false });
  return pack.validateScope(stack).violations;
}

const describeFindings = (violations: PolicyViolation[]) =>
  violations.map(
    (violation) => `${violation.severity ?? ''} ${violation.ruleName}: ${violation.violatingResources.map((resource) => resource.constructPath).join(', ')}`,
  );

describe.each([
  { name: 'dev', context: { stage: 'dev' } },
  { name: 'prod with an alarm topic', context: { stage: 'prod', alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops' } },
])('AwsSolutions checks, stage $name', ({ context }) => {
  let stack: CustomerApiStack;

  beforeAll(() => {
    // Prepare + Act
    stack = synth(context);
  }, 120_000);

  it('leaves no finding, error or warning, unacknowledged', () => {
    // Act
    const violations = findings(stack);

    // Assess
    expect(describeFindings(violations)).toEqual([]);
  });

  it('acknowledges each finding with its rule id and a one-line reason', () => {
    // Act
    const acknowledgments = nagAcknowledgments(stack).map(({ acknowledgment }) => acknowledgment);

    // Assess
    expect(acknowledgments.length).toBeGreaterThan(0);
    for (const { id, reason } of acknowledgments) {
      expect(id).toMatch(/^AwsSolutions-[A-Z]+[0-9]+(\[.+\])?$/);
      expect(reason.trim().length, id).toBeGreaterThan(20);
      expect(reason, id).not.toContain('\n');
    }
  });

  it('needs every acknowledgment: each one silences a finding the pack reports without it', () => {
    // Prepare
    const silenced = new Set(findings(stack, { ignoringAcknowledgments: true }).map((violation) => violation.ruleName));

    // Act
    const unneeded = nagAcknowledgments(stack).filter(({ acknowledgment }) => !silenced.has(acknowledgment.id));

    // Assess
    expect(unneeded.map(({ scope, acknowledgment }) => `${acknowledgment.id} on ${scope.node.path}`)).toEqual([]);
  });
});
