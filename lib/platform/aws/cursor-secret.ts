import { awsJsonError, awsRegion, signedFetch, signerFor } from './aws-signed-fetch.ts';

/**
 * Reads the cursor secret's value from AWS Secrets Manager (docs/operations.md#cursor-secret),
 * one `GetSecretValue` per call: the keyring of lib/platform/pagination/cursor-keyring.ts decides
 * when to read, and caches. The call is the awsJson1_1 request the Secrets Manager client would
 * send, signed and retried as it would (lib/platform/aws/aws-signed-fetch.ts): the client itself is
 * ~13 KB in every list function for this one call (docs/operations.md#bundles). The endpoint
 * follows the SDK's standard `AWS_ENDPOINT_URL_SECRETS_MANAGER`.
 */

// Without timeouts a read cut off by a freeze would hang, and no container would read again
// (the client this replaces had a 1 s connection and a 3 s request timeout).
const READ_TIMEOUT_MS = 4_000;

const secretsManagerSigner = signerFor('secretsmanager');

export function secretsManagerReader(secretId: string): () => Promise<string> {
  return async () => {
    const endpoint = process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER ?? `https://secretsmanager.${await awsRegion()}.amazonaws.com`;
    const response = await signedFetch(secretsManagerSigner, {
      url: new URL('/', endpoint),
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'secretsmanager.GetSecretValue' },
      body: JSON.stringify({ SecretId: secretId }),
      timeoutMs: READ_TIMEOUT_MS,
      errorOf: awsJsonError,
    });
    const { SecretString } = (await response.json()) as { SecretString?: unknown };
    if (typeof SecretString !== 'string') throw new Error('The cursor secret has no string value');
    return SecretString;
  };
}
