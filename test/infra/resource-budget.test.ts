import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CustomerApiStack } from '../../infra/customer-api-stack.ts';
import { resolveStageConfig, stackNameFor } from '../../infra/stages.ts';
import { ROUTES } from '../../lib/app/routes.ts';
import { WORKERS } from '../../lib/app/workers.ts';
import type { RouteDefinition } from '../../lib/platform/contracts/route-types.ts';
import { stackSynthesizer } from './synth.ts';
import { CDK_JSON_CONTEXT, resourcesOfType } from './template-helpers.ts';

// CloudFormation refuses a stack of more than 500 resources, at deploy time: this keeps the
// stage's stack under a budget below that, and pins what one route costs
// (docs/operations.md "Stages and deploy", resource budget).

/** CloudFormation's hard limit on resources per stack. */
const CLOUDFORMATION_LIMIT = 500;

/**
 * The budget: 30 below the limit, a reserve for what an area brings besides routes (a queue
 * with its dead-letter queue, their policies and alarm is 5; a table 1) and for the stack's
 * own growth. When 403 resources (58 routes) were counted, the budget left 67 resources of
 * headroom: 13 more routes at 5 resources each. When a change crosses it, split the stack
 * (docs/operations.md) rather than raising the budget toward 500.
 */
const RESOURCE_BUDGET = 470;

/**
 * What one route adds: its function, the function's role and log group, the integration and
 * the route. API Gateway invokes through the one ApiInvokeRole (infra/api-invoke-role.ts), so
 * no AWS::Lambda::Permission; the role's one inline policy, so no AWS::IAM::Policy.
 */
const PER_ROUTE = {
  'AWS::Lambda::Function': 1,
  'AWS::IAM::Role': 1,
  'AWS::Logs::LogGroup': 1,
  'AWS::ApiGatewayV2::Integration': 1,
  'AWS::ApiGatewayV2::Route': 1,
};
const PER_ROUTE_RESOURCES = Object.values(PER_ROUTE).reduce((sum, count) => sum + count, 0);

function countByType(template: Template): Map<string, number> {
  const counts = new Map<string, number>();
  const resources = (template.toJSON() as { Resources: Record<string, { Type: string }> }).Resources;
  for (const { Type } of Object.values(resources)) counts.set(Type, (counts.get(Type) ?? 0) + 1);
  return counts;
}

const total = (counts: Map<string, number>) => [...counts.values()].reduce((sum, count) => sum + count, 0);

const synth = stackSynthesizer();
const outdirs: string[] = [];
afterAll(() => {
  for (const outdir of outdirs) rmSync(outdir, { recursive: true, force: true });
});

/** The stage's stack with `routes` instead of ROUTES (workers and the rest as deployed). */
function synthWithRoutes(stage: string, routes: readonly RouteDefinition[]): Template {
  const app = new App({ context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [] } });
  outdirs.push(app.outdir);
  const config = resolveStageConfig((key) => ({ stage })[key]);
  return Template.fromStack(new CustomerApiStack(app, stackNameFor(stage), { config, routes }));
}

describe.each(['dev', 'prod'])('the %s stack', (stage) => {
  let template: Template;
  let counts: Map<string, number>;

  beforeAll(() => {
    // Prepare + Act (shared): the stage's stack as `cdk synth` makes it.
    template = synth({ stage }).template;
    counts = countByType(template);
  }, 120_000);

  it(`stays within the budget of ${RESOURCE_BUDGET} resources (CloudFormation allows ${CLOUDFORMATION_LIMIT})`, () => {
    // Act
    const resources = total(counts);

    // Assess
    const headroom = `${resources} resources, ${Math.floor((RESOURCE_BUDGET - resources) / PER_ROUTE_RESOURCES)} more routes fit the budget`;
    expect(resources, headroom).toBeLessThanOrEqual(RESOURCE_BUDGET);
    expect(RESOURCE_BUDGET).toBeLessThan(CLOUDFORMATION_LIMIT);
  });

  it("has no AWS::Lambda::Permission per route: the only ones are the scheduled workers', for EventBridge", () => {
    // Act
    const principals = resourcesOfType(template, 'AWS::Lambda::Permission').map(([, permission]) => permission.Properties.Principal);

    // Assess
    expect(principals).toEqual(WORKERS.filter((worker) => worker.trigger === 'schedule').map(() => 'events.amazonaws.com'));
  });
});

describe(`one route costs ${PER_ROUTE_RESOURCES} resources`, () => {
  let withAll: Map<string, number>;
  let withoutOne: Map<string, number>;

  beforeAll(() => {
    // Prepare + Act: the same stage with every route, and without the last one.
    withAll = countByType(synthWithRoutes('budget', ROUTES));
    withoutOne = countByType(synthWithRoutes('budget', ROUTES.slice(0, -1)));
  }, 120_000);

  it('function, role, log group, integration and route; nothing else', () => {
    // Act
    const added = Object.fromEntries(
      [...withAll.keys()].map((type) => [type, (withAll.get(type) ?? 0) - (withoutOne.get(type) ?? 0)] as const).filter(([, count]) => count !== 0),
    );

    // Assess
    expect(added).toEqual(PER_ROUTE);
    expect(total(withAll) - total(withoutOne)).toBe(PER_ROUTE_RESOURCES);
  });
});
