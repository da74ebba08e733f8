import { inject } from 'vitest';

/**
 * Points the AWS SDK and the table names of this test worker at the local stack, before any
 * test module imports store code. Integration and e2e tests run only against the local stack
 * and refuse anything else.
 */
const stack = inject('stack');
for (const service of ['DYNAMODB', 'S3', 'SQS']) {
  if (!stack.env[`AWS_ENDPOINT_URL_${service}`]) throw new Error(`The local stack did not provide AWS_ENDPOINT_URL_${service}.`);
}
for (const [name, value] of Object.entries(stack.env)) {
  if (name.startsWith('AWS_ENDPOINT_URL') && !/^http:\/\/127\.0\.0\.1:\d+$/.test(value)) {
    throw new Error(`Refusing to run integration tests against ${value}: only the local stack is allowed.`);
  }
}
Object.assign(process.env, stack.env, { LOG_LEVEL: 'silent' });
