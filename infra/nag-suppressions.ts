import { Validations } from 'aws-cdk-lib';
import type { CfnResource, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { ApiFunction } from './api-function.ts';
import { FILES_BUCKET_ID } from './files-bucket.ts';
import { OBJECT_AREA_PREFIXES } from './grants.ts';
import type { ObjectArea } from './grants.ts';

/**
 * The AwsSolutions (cdk-nag) findings this stack accepts, each on the narrowest construct, with
 * its reason (docs/operations.md#cdk-nag). Recorded with CDK's own `Validations.acknowledge`,
 * which cdk-nag reads: the stack does not depend on cdk-nag, test/infra/nag.test.ts runs it.
 */

export interface NagAcknowledgment {
  /** The rule id, with the finding in brackets for rules that report several (IAM5). */
  id: string;
  reason: string;
}

/** Where each acknowledgment applies; exported so the test can check that each one is still needed. */
export function nagAcknowledgments(stack: Stack): Array<{ scope: IConstruct; acknowledgment: NagAcknowledgment }> {
  const found: Array<{ scope: IConstruct; acknowledgment: NagAcknowledgment }> = [];
  const add = (scope: IConstruct | undefined, id: string, reason: string) => {
    if (scope) found.push({ scope, acknowledgment: { id, reason } });
  };

  for (const fn of stack.node.findAll().filter((construct): construct is ApiFunction => construct instanceof ApiFunction)) {
    add(
      fn,
      'AwsSolutions-L1',
      'The runtime is the Node.js major of lib/platform/config/runtime.ts, which the local runtime and the tests run too; it moves by a deliberate upgrade.',
    );
  }

  add(
    stack.node.tryFindChild('HttpApi'),
    'AwsSolutions-APIG4',
    'Every route authenticates its API key in the function chain (docs/api-guide.md#authentication-and-scopes); $default only answers 404; GET /docs… serve the public API reference (docs/api-guide.md#api-reference).',
  );

  add(
    stack.node.tryFindChild('CursorSecret'),
    'AwsSolutions-SMG4',
    'Rotated by hand in three steps with a grace period (docs/operations.md#cursor-secret); a rotation Lambda would break cursors in flight.',
  );

  const filesBucket = stack.node.tryFindChild(FILES_BUCKET_ID);
  if (filesBucket) {
    const bucketLogicalId = stack.getLogicalId(filesBucket.node.defaultChild as CfnResource);
    for (const area of Object.keys(OBJECT_AREA_PREFIXES) as ObjectArea[]) {
      add(
        stack,
        `AwsSolutions-IAM5[Resource::<${bucketLogicalId}.Arn>/${OBJECT_AREA_PREFIXES[area]}*]`,
        `Object calls reach the ${area} key prefix only, whose keys the server makes per organization (docs/operations.md#grants).`,
      );
    }
  }
  const eventsTable = stack.node.tryFindChild('EventsTable');
  if (eventsTable) {
    const tableLogicalId = stack.getLogicalId(eventsTable.node.defaultChild as CfnResource);
    add(
      stack,
      `AwsSolutions-IAM5[Resource::<${tableLogicalId}.Arn>/stream/*]`,
      'dynamodb:ListStreams for the webhook dispatcher\'s event source mapping, limited to the streams of the events table (docs/webhooks.md "Delivery").',
    );
  }
  return found;
}

export function applyNagSuppressions(stack: Stack): void {
  for (const { scope, acknowledgment } of nagAcknowledgments(stack)) Validations.of(scope).acknowledge(acknowledgment);
}
