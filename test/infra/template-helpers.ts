import { readFileSync } from 'node:fs';
import type { Template } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';

/** Helpers to read a synthesized CloudFormation template in infra tests. */

/** The feature flags of cdk.json, so tests synthesize what `cdk synth` does. */
export const CDK_JSON_CONTEXT = (
  JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
    context: Record<string, unknown>;
  }
).context;

export interface CfnResource {
  Type: string;
  Properties: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
  DeletionPolicy?: string;
}

export interface PolicyStatement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

export function resourcesOfType(template: Template, type: string): [string, CfnResource][] {
  return Object.entries(template.findResources(type)) as [string, CfnResource][];
}

export function resourceById(template: Template, logicalId: string): CfnResource {
  const resource = (template.toJSON() as { Resources: Record<string, CfnResource | undefined> }).Resources[logicalId];
  if (!resource) throw new Error(`No resource ${logicalId}`);
  return resource;
}

export function asArray<T>(value: T | T[]): T[] {
  return Array.isArray(value) ? value : [value];
}

/** Logical ids a CloudFormation value references through Ref / Fn::GetAtt (pseudo parameters excluded). */
export function referencedLogicalIds(value: unknown): Set<string> {
  const found = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(walk);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, child] of Object.entries(node)) {
      if (key === 'Ref' && typeof child === 'string' && !child.startsWith('AWS::')) found.add(child);
      else if (key === 'Fn::GetAtt' && Array.isArray(child) && typeof child[0] === 'string') found.add(child[0]);
      else walk(child);
    }
  };
  walk(value);
  return found;
}

export function singleReference(value: unknown): string {
  const ids = [...referencedLogicalIds(value)];
  expect(ids).toHaveLength(1);
  return ids[0] as string;
}

export function logicalIdOfType(template: Template, type: string, predicate: (resource: CfnResource) => boolean): string {
  const matches = resourcesOfType(template, type).filter(([, resource]) => predicate(resource));
  expect(matches, `exactly one ${type} matches`).toHaveLength(1);
  return (matches[0] as [string, CfnResource])[0];
}

/** Every IAM statement attached to a function's execution role. */
export function statementsOfFunction(template: Template, fnLogicalId: string): PolicyStatement[] {
  return statementsOfRole(template, singleReference(resourceById(template, fnLogicalId).Properties.Role));
}

/** Every IAM statement of a role: its inline policies and the AWS::IAM::Policy resources attached to it. */
export function statementsOfRole(template: Template, roleId: string): PolicyStatement[] {
  const inline = ((resourceById(template, roleId).Properties.Policies ?? []) as Array<{ PolicyDocument: { Statement: PolicyStatement[] } }>).flatMap(
    (policy) => policy.PolicyDocument.Statement,
  );
  const attached = resourcesOfType(template, 'AWS::IAM::Policy')
    .filter(([, policy]) => referencedLogicalIds(policy.Properties.Roles).has(roleId))
    .flatMap(([, policy]) => (policy.Properties.PolicyDocument as { Statement: PolicyStatement[] }).Statement);
  return [...inline, ...attached];
}

export function environmentOf(template: Template, fnLogicalId: string): Record<string, unknown> {
  const env = resourceById(template, fnLogicalId).Properties.Environment as { Variables: Record<string, unknown> } | undefined;
  return env?.Variables ?? {};
}

export function logGroupOfFunction(template: Template, fnLogicalId: string): string {
  const loggingConfig = resourceById(template, fnLogicalId).Properties.LoggingConfig as { LogGroup: unknown };
  return singleReference(loggingConfig.LogGroup);
}

/**
 * A readable name for an ARN in a template: `Logical.Arn` for a Fn::GetAtt, joins spelled out
 * (`FilesBucketAB12.Arn/imports/*`), strings as they are. Resolved tokens of the stack (e.g.
 * `stack.resolve(table.tableArn)`) describe the same way, so expectations need no logical ids.
 */
export function describeArn(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object') {
    const node = value as Record<string, unknown>;
    const getAtt = node['Fn::GetAtt'];
    if (Array.isArray(getAtt)) return `${String(getAtt[0])}.${String(getAtt[1])}`;
    if (typeof node.Ref === 'string') return `Ref:${node.Ref}`;
    const join = node['Fn::Join'];
    if (Array.isArray(join)) return (join[1] as unknown[]).map(describeArn).join(String(join[0]));
  }
  return JSON.stringify(value);
}

/** One allowed action on one resource, with its condition: `dynamodb:GetItem on KeysTableAB12.Arn`. */
export function permission(action: string, resource: unknown, condition?: unknown): string {
  return `${action} on ${describeArn(resource)}${condition === undefined ? '' : ` if ${JSON.stringify(condition)}`}`;
}

/** Every (action, resource) an execution role's statements allow, one `permission` each. */
export function permissionsOfFunction(template: Template, fnLogicalId: string): string[] {
  return permissionsOf(statementsOfFunction(template, fnLogicalId));
}

/** Every (action, resource) a role's statements allow, one `permission` each. */
export function permissionsOfRole(template: Template, roleId: string): string[] {
  return permissionsOf(statementsOfRole(template, roleId));
}

function permissionsOf(statements: readonly PolicyStatement[]): string[] {
  const found = new Set<string>();
  for (const statement of statements) {
    expect(statement.Effect, JSON.stringify(statement)).toBe('Allow');
    for (const action of asArray(statement.Action)) {
      for (const resource of asArray(statement.Resource as unknown)) found.add(permission(action, resource, statement.Condition));
    }
  }
  return [...found].sort();
}
