/**
 * Where a function finds its cursor keys (docs/operations.md#cursor-secret). Definitions only, so
 * that the CDK stack can name them without loading the secret's reader.
 */

/** On AWS: the ARN of the Secrets Manager secret that holds the cursor keys. */
export const CURSOR_SECRET_ARN_ENV = 'CURSOR_SECRET_ARN';
/** Local runtime and tests: the key itself. */
export const CURSOR_SECRET_ENV = 'CURSOR_SECRET';
