import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROLE_INLINE_POLICY_LIMIT_CHARS } from '../../infra/api-invoke-role.ts';
import type { CustomerApiStack } from '../../infra/customer-api-stack.ts';
import { ROUTES } from '../../lib/app/routes.ts';
import { WORKERS } from '../../lib/app/workers.ts';
import { stackSynthesizer } from './synth.ts';
import { asArray, resourceById, resourcesOfType, singleReference, statementsOfRole } from './template-helpers.ts';

// API Gateway invokes the HTTP API's functions with ONE role, named as every integration's
// credentials (infra/api-invoke-role.ts), instead of one AWS::Lambda::Permission per route
// (docs/operations.md "Stages and deploy").

const synth = stackSynthesizer();

/**
 * The longest function ARN a deploy can produce: the longest partition and region, and a
 * function name of 64 characters (CloudFormation's generated `<stack>-<logical id>-<suffix>` names
 * are cut at 64).
 */
const LONGEST_FUNCTION_ARN = `arn:aws-us-gov:lambda:ap-southeast-4:123456789012:function:${'F'.repeat(64)}`;

/** `{ "Fn::GetAtt": [<function>, "Arn"] }` → the longest ARN, so the rendered policy is as long as a deploy can make it. */
function withLongestArns(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withLongestArns);
  if (value === null || typeof value !== 'object') return value;
  const getAtt = (value as Record<string, unknown>)['Fn::GetAtt'];
  if (Array.isArray(getAtt) && getAtt[1] === 'Arn') return LONGEST_FUNCTION_ARN;
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, withLongestArns(child)]));
}

describe('the API invoke role (stage dev)', () => {
  let stack: CustomerApiStack;
  let template: Template;
  let roleId: string;

  beforeAll(() => {
    // Prepare + Act (shared): one synth without bundling.
    ({ stack, template } = synth({ stage: 'dev' }));
    roleId = singleReference(stack.resolve(stack.apiInvokeRole.role.roleArn));
  }, 120_000);

  const functionId = (fn: { functionArn: string }) => singleReference(stack.resolve(fn.functionArn));
  /** The functions API Gateway must reach: one per route, the $default fallback, the API reference. */
  const httpFunctionIds = () =>
    [...[...stack.routeFunctions.values()].map((fn) => fn.function), stack.fallbackFunction.function, stack.referenceDocsFunction.function].map(functionId);

  it('is named as the credentials of every integration of the HTTP API', () => {
    // Act
    const integrations = resourcesOfType(template, 'AWS::ApiGatewayV2::Integration');

    // Assess
    expect(integrations.length).toBeGreaterThan(ROUTES.length);
    for (const [id, integration] of integrations) {
      expect(integration.Properties, id).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
      expect(integration.Properties.CredentialsArn, id).toEqual({ 'Fn::GetAtt': [roleId, 'Arn'] });
    }
  });

  it('routes every route through an integration with the role, each function through one integration', () => {
    // Act
    const targets = resourcesOfType(template, 'AWS::ApiGatewayV2::Route').map(([, route]) => singleReference(route.Properties.Target));
    const functionsOfIntegrations = resourcesOfType(template, 'AWS::ApiGatewayV2::Integration').map(([, integration]) =>
      singleReference(integration.Properties.IntegrationUri),
    );

    // Assess
    for (const target of targets) expect(resourceById(template, target).Properties.CredentialsArn).toEqual({ 'Fn::GetAtt': [roleId, 'Arn'] });
    // The three GET /docs… routes share the API reference's one integration.
    expect(new Set(functionsOfIntegrations).size).toBe(functionsOfIntegrations.length);
    expect(functionsOfIntegrations.sort()).toEqual(httpFunctionIds().sort());
  });

  it('is trusted by API Gateway alone', () => {
    // Act
    const trust = resourceById(template, roleId).Properties.AssumeRolePolicyDocument as { Statement: unknown[] };

    // Assess
    expect(trust.Statement).toEqual([{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'apigateway.amazonaws.com' } }]);
    expect(resourceById(template, roleId).Properties.ManagedPolicyArns).toBeUndefined();
  });

  it('may invoke exactly the HTTP functions (routes, $default, API reference) and no worker', () => {
    // Prepare
    const workerIds = WORKERS.map((worker) => {
      const fn = stack.workerFunctions.get(worker.id);
      if (!fn) throw new Error(`no function for worker ${worker.id}`);
      return functionId(fn.function);
    });

    // Act
    const statements = statementsOfRole(template, roleId);

    // Assess
    expect(statements).toHaveLength(1);
    const [statement] = statements;
    expect(statement).toMatchObject({ Effect: 'Allow', Action: 'lambda:InvokeFunction' });
    expect(statement?.Condition).toBeUndefined();
    const resources = asArray(statement?.Resource);
    for (const resource of resources) expect(resource).toEqual({ 'Fn::GetAtt': [singleReference(resource), 'Arn'] });
    const invokable = resources.map((resource) => singleReference(resource));
    expect(invokable.sort()).toEqual(httpFunctionIds().sort());
    expect(invokable).toHaveLength(ROUTES.length + 2);
    expect(invokable.filter((id) => workerIds.includes(id))).toEqual([]);
  });

  it('leaves no Lambda resource policy that lets API Gateway invoke a function', () => {
    // Act
    const principals = resourcesOfType(template, 'AWS::Lambda::Permission').map(([, permission]) => permission.Properties.Principal);

    // Assess
    expect(principals).not.toContain('apigateway.amazonaws.com');
  });

  it('is the only identity allowed lambda:InvokeFunction', () => {
    // Act
    const invokers = resourcesOfType(template, 'AWS::IAM::Role')
      .map(([id]) => id)
      .filter((id) =>
        statementsOfRole(template, id).some((statement) =>
          asArray(statement.Action).some((action) => action === 'lambda:InvokeFunction' || action === 'lambda:*'),
        ),
      );

    // Assess
    expect(invokers).toEqual([roleId]);
  });

  it("keeps its policy within IAM's inline limit with the longest function ARNs a deploy can produce", () => {
    // Prepare
    const policies = resourceById(template, roleId).Properties.Policies as Array<{ PolicyDocument: unknown }>;

    // Act: IAM counts the documents without whitespace, which JSON.stringify leaves out.
    const size = policies.map((policy) => JSON.stringify(withLongestArns(policy.PolicyDocument)).length).reduce((sum, length) => sum + length, 0);

    // Assess: each more HTTP function adds its ARN, quoted, and a comma.
    const roomForFunctions = Math.floor((ROLE_INLINE_POLICY_LIMIT_CHARS - size) / (LONGEST_FUNCTION_ARN.length + 3));
    expect(size, `invoke policy: ${size} of ${ROLE_INLINE_POLICY_LIMIT_CHARS} characters, room for ${roomForFunctions} more functions`).toBeLessThanOrEqual(
      ROLE_INLINE_POLICY_LIMIT_CHARS,
    );
  });
});
