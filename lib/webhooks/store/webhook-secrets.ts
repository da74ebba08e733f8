import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { SecretBox } from '../domain/endpoint.ts';
import { awsJsonError, awsRegion, signedFetch, signerFor } from '../../platform/aws/aws-signed-fetch.ts';
import { WEBHOOK_KMS_KEY_ENV_VAR, WEBHOOK_LOCAL_KEY_FILE_ENV_VAR } from '../../platform/storage/tables.ts';

/**
 * Webhook signing secrets at rest (docs/webhooks.md "Secrets"): AES-256-GCM under a data key,
 * the envelope `v2.<wrapped data key>.<iv>.<ciphertext>.<tag>` (base64url parts), the caller's
 * context (organization and endpoint) authenticated as associated data. `v1` envelopes, sealed
 * before the context was bound, still open (without associated data) until rotated away. On AWS the data
 * key comes from the stage's KMS key (GenerateDataKey once per container; Decrypt once per wrapped
 * key, then cached) through the signed-request helper, so no KMS client is bundled; the wrapped
 * key is stored with each secret. Locally the data key is a key file under the state directory
 * (`local` in the envelope). A secret is never logged: errors name the envelope's part, not it.
 */

interface DataKeySource {
  /** The key new secrets are sealed with, and how the envelope names it. */
  current(): Promise<{ key: Buffer; wrapped: string }>;
  unwrap(wrapped: string): Promise<Buffer>;
}

const b64 = (bytes: Buffer) => bytes.toString('base64url');
/** Sealed with the context as associated data. */
const BOUND_SCHEME = 'v2';
/** Sealed before contexts were bound: opened without associated data. */
const UNBOUND_SCHEME = 'v1';

class AesGcmSecretBox implements SecretBox {
  constructor(private readonly keys: DataKeySource) {}

  async seal(secret: string, context: string): Promise<string> {
    const { key, wrapped } = await this.keys.current();
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [BOUND_SCHEME, wrapped, b64(iv), b64(ciphertext), b64(cipher.getAuthTag())].join('.');
  }

  async open(sealed: string, context: string): Promise<string> {
    const [version, wrapped, iv, ciphertext, tag] = sealed.split('.');
    if ((version !== BOUND_SCHEME && version !== UNBOUND_SCHEME) || !wrapped || !iv || !ciphertext || !tag)
      throw new Error('Not a sealed webhook secret (unknown envelope)');
    const decipher = createDecipheriv('aes-256-gcm', await this.keys.unwrap(wrapped), Buffer.from(iv, 'base64url'));
    if (version === BOUND_SCHEME) decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}

function localKeySource(path: string): DataKeySource {
  const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`The webhook secrets key file ${path} does not hold 32 bytes in base64`);
  return {
    current: () => Promise.resolve({ key, wrapped: 'local' }),
    unwrap: (wrapped) =>
      wrapped === 'local' ? Promise.resolve(key) : Promise.reject(new Error('A secret sealed by KMS cannot be opened with the local key file')),
  };
}

const kmsSigner = signerFor('kms');
const KMS_TIMEOUT_MS = 4_000;

async function kms(target: 'GenerateDataKey' | 'Decrypt', body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const endpoint = process.env.AWS_ENDPOINT_URL_KMS ?? `https://kms.${await awsRegion()}.amazonaws.com`;
  const response = await signedFetch(kmsSigner, {
    url: new URL('/', endpoint),
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `TrentService.${target}` },
    body: JSON.stringify(body),
    timeoutMs: KMS_TIMEOUT_MS,
    errorOf: awsJsonError,
  });
  return (await response.json()) as Record<string, unknown>;
}

function kmsKeySource(keyId: string): DataKeySource {
  let current: Promise<{ key: Buffer; wrapped: string }> | undefined;
  const unwrapped = new Map<string, Promise<Buffer>>();
  return {
    current() {
      current ??= kms('GenerateDataKey', { KeyId: keyId, KeySpec: 'AES_256' }).then((answer) => {
        const wrapped = Buffer.from(answer.CiphertextBlob as string, 'base64').toString('base64url');
        const key = Buffer.from(answer.Plaintext as string, 'base64');
        unwrapped.set(wrapped, Promise.resolve(key));
        return { key, wrapped };
      });
      current.catch(() => (current = undefined));
      return current;
    },
    unwrap(wrapped) {
      let key = unwrapped.get(wrapped);
      if (!key) {
        key = kms('Decrypt', { KeyId: keyId, CiphertextBlob: Buffer.from(wrapped, 'base64url').toString('base64') }).then((answer) =>
          Buffer.from(answer.Plaintext as string, 'base64'),
        );
        key.catch(() => unwrapped.delete(wrapped));
        unwrapped.set(wrapped, key);
      }
      return key;
    },
  };
}

/** The stage's secret box: the KMS key when the stack names one, else the local key file. */
export function webhookSecretBox(env: NodeJS.ProcessEnv = process.env): SecretBox {
  const kmsKeyId = env[WEBHOOK_KMS_KEY_ENV_VAR];
  if (kmsKeyId) return new AesGcmSecretBox(kmsKeySource(kmsKeyId));
  const keyFile = env[WEBHOOK_LOCAL_KEY_FILE_ENV_VAR];
  if (keyFile) return new AesGcmSecretBox(localKeySource(keyFile));
  throw new Error(`Webhook secrets need ${WEBHOOK_KMS_KEY_ENV_VAR} (AWS) or ${WEBHOOK_LOCAL_KEY_FILE_ENV_VAR} (local runtime)`);
}

/** For tests: a box over a given 32-byte key. */
export function secretBoxWithKey(key: Buffer): SecretBox {
  return new AesGcmSecretBox({ current: () => Promise.resolve({ key, wrapped: 'local' }), unwrap: () => Promise.resolve(key) });
}
