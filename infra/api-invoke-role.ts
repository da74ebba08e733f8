import { HttpIntegrationType, HttpRouteIntegration, IntegrationCredentials, PayloadFormatVersion } from 'aws-cdk-lib/aws-apigatewayv2';
import type { HttpRouteIntegrationConfig } from 'aws-cdk-lib/aws-apigatewayv2';
import { PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

/**
 * How API Gateway invokes the stack's HTTP functions (docs/operations.md "Stages and deploy"):
 * every Lambda integration of the HTTP API names ONE role as its credentials, allowed
 * `lambda:InvokeFunction` on exactly the functions those integrations target, instead of one
 * `AWS::Lambda::Permission` (a resource policy statement) per route. Per route the stack then
 * costs five resources (function, its role, its log group, the integration, the route) instead
 * of six: CloudFormation allows 500 per stack (test/infra/resource-budget.test.ts).
 *
 * aws-cdk-lib's `HttpLambdaIntegration` (2.276) has no `credentials` option and always adds a
 * permission; `HttpRouteIntegration` is the library's extension point, and its bind config
 * carries `credentials` to the `AWS::ApiGatewayV2::Integration` it creates (`CredentialsArn`).
 */

export const API_INVOKE_ROLE_ID = 'ApiInvokeRole';

/**
 * IAM's limit on the inline policies of one role together, in characters without whitespace:
 * the invoke role lists every HTTP function's ARN (test/infra/resource-budget.test.ts checks the
 * policy against it with the longest ARNs a deploy can produce).
 */
export const ROLE_INLINE_POLICY_LIMIT_CHARS = 10_240;

/** A Lambda proxy integration (payload 2.0) that API Gateway calls with the invoke role's credentials. */
export class RoleInvokedLambdaIntegration extends HttpRouteIntegration {
  constructor(
    id: string,
    private readonly handler: IFunction,
    private readonly credentials: IntegrationCredentials,
  ) {
    super(id);
  }

  bind(): HttpRouteIntegrationConfig {
    return {
      type: HttpIntegrationType.AWS_PROXY,
      uri: this.handler.functionArn,
      payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
      credentials: this.credentials,
    };
  }
}

export class ApiInvokeRole extends Construct {
  readonly role: Role;
  private readonly access = new PolicyDocument();
  private readonly invoke = new PolicyStatement({ actions: ['lambda:InvokeFunction'] });
  private readonly invokable = new Set<IFunction>();
  private readonly credentials: IntegrationCredentials;

  constructor(scope: Construct, id: string, props: { description: string }) {
    super(scope, id);
    // Trusted by API Gateway WITHOUT an aws:SourceArn / aws:SourceAccount condition: API Gateway
    // is not documented to set those keys when it assumes an integration's credentials role, and
    // it has been seen not to set aws:SourceAccount there; a condition on a missing key denies
    // the assume-role, and every route would answer 500 (nothing local can test it). What bounds
    // the role instead: an integration can only name it by iam:PassRole in this account (a role
    // cannot be passed across accounts), and it may invoke this stack's HTTP functions only, which
    // authenticate every request themselves (docs/operations.md "Stages and deploy").
    this.role = new Role(this, 'Resource', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      description: props.description,
      inlinePolicies: { invoke: this.access },
    });
    this.credentials = IntegrationCredentials.fromRole(this.role);
  }

  /** The functions the role may invoke, in the order their first integration was made. */
  get functions(): readonly IFunction[] {
    return [...this.invokable];
  }

  /**
   * An integration of `fn` that API Gateway calls with this role, which may now invoke `fn` (its
   * unqualified ARN: what the integration calls). Bind one integration to several routes of the
   * same function: the role does not depend on the route, so they can share it.
   */
  integrationFor(id: string, fn: IFunction): RoleInvokedLambdaIntegration {
    if (!this.invokable.has(fn)) {
      if (this.invokable.size === 0) this.access.addStatements(this.invoke);
      this.invokable.add(fn);
      this.invoke.addResources(fn.functionArn);
    }
    return new RoleInvokedLambdaIntegration(id, fn, this.credentials);
  }
}
