import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/**
 * Reads the cursor secret's value from AWS Secrets Manager (docs/operations.md#cursor-secret),
 * one `GetSecretValue` per call: the keyring of lib/domain/pagination/cursor-keyring.ts decides
 * when to read, and caches. The endpoint follows the SDK's standard
 * `AWS_ENDPOINT_URL_SECRETS_MANAGER`.
 */
export function secretsManagerReader(secretId: string): () => Promise<string> {
  // Without timeouts a read cut off by a freeze would hang, and no container would read again.
  const client = new SecretsManagerClient({ requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000 } });
  return async () => {
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    if (typeof SecretString !== 'string') throw new Error('The cursor secret has no string value');
    return SecretString;
  };
}
