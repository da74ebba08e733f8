import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { secretBoxWithKey, webhookSecretBox } from '../../../lib/webhooks/store/webhook-secrets.ts';
import { sealedSecretContext } from '../../../lib/webhooks/domain/endpoint.ts';
import { webhookAllowLoopback, webhookFirstRetrySeconds, webhookTestResolve } from '../../../lib/platform/config/webhooks.ts';

/** Webhook secrets at rest (docs/webhooks.md "Secrets") and the local-only settings. */

const directory = mkdtempSync(join(tmpdir(), 'webhook-secrets-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('the secret box', () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;

  it('seals a secret so that the stored text does not contain it, and opens it again', async () => {
    const box = secretBoxWithKey(randomBytes(32));
    const sealed = await box.seal(secret, 'context');
    expect(sealed).not.toContain(secret.slice(6));
    expect(sealed.startsWith('v2.local.')).toBe(true);
    expect(await box.open(sealed, 'context')).toBe(secret);
    // A fresh nonce each time: the same secret never seals to the same text.
    expect(await box.seal(secret, 'context')).not.toBe(sealed);
  });

  it('refuses a tampered envelope and a wrong key', async () => {
    const box = secretBoxWithKey(randomBytes(32));
    const sealed = await box.seal(secret, 'context');
    const parts = sealed.split('.');
    const ciphertext = Buffer.from(parts[3] ?? '', 'base64url');
    ciphertext[0] = (ciphertext[0] ?? 0) ^ 1;
    await expect(box.open([parts[0], parts[1], parts[2], ciphertext.toString('base64url'), parts[4]].join('.'), 'context')).rejects.toThrow();
    await expect(secretBoxWithKey(randomBytes(32)).open(sealed, 'context')).rejects.toThrow();
  });

  it('uses the local key file when no KMS key is named, and refuses to start without either', async () => {
    const keyFile = join(directory, 'key');
    writeFileSync(keyFile, randomBytes(32).toString('base64'));
    const box = webhookSecretBox({ WEBHOOK_SECRETS_KEY_FILE: keyFile });
    expect(await box.open(await box.seal(secret, 'context'), 'context')).toBe(secret);
    expect(() => webhookSecretBox({})).toThrow(/WEBHOOK_SECRETS_KMS_KEY_ID/);
  });
});

describe('the secret box: bound to its endpoint', () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const own = sealedSecretContext('org_1', 'whe_own');

  it("a secret sealed for one endpoint does not open as another endpoint's, nor another organization's", async () => {
    const box = secretBoxWithKey(randomBytes(32));
    const sealed = await box.seal(secret, own);
    expect(await box.open(sealed, own)).toBe(secret);
    await expect(box.open(sealed, sealedSecretContext('org_1', 'whe_other'))).rejects.toThrow();
    await expect(box.open(sealed, sealedSecretContext('org_2', 'whe_own'))).rejects.toThrow();
  });

  it('still opens a secret sealed by the earlier scheme (v1: no associated data)', async () => {
    const key = randomBytes(32);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    const v1 = ['v1', 'local', iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    expect(await secretBoxWithKey(key).open(v1, own)).toBe(secret);
  });
});

describe('local-only settings', () => {
  it('admits loopback endpoints only with WEBHOOK_ALLOW_LOOPBACK=1', () => {
    expect(webhookAllowLoopback({ WEBHOOK_ALLOW_LOOPBACK: '1' })).toBe(true);
    expect(webhookAllowLoopback({ WEBHOOK_ALLOW_LOOPBACK: 'true' })).toBe(false);
    expect(webhookAllowLoopback({})).toBe(false);
  });

  it('reads the first retry wait as whole seconds', () => {
    expect(webhookFirstRetrySeconds({ WEBHOOK_FIRST_RETRY_SECONDS: '1' })).toBe(1);
    expect(webhookFirstRetrySeconds({})).toBeUndefined();
    expect(() => webhookFirstRetrySeconds({ WEBHOOK_FIRST_RETRY_SECONDS: '1.5' })).toThrow();
  });

  it('reads fixed DNS answers as a JSON map of lower-case host to IP addresses, and refuses anything else', () => {
    expect(webhookTestResolve({})).toBeUndefined();
    const answers = webhookTestResolve({ WEBHOOK_TEST_RESOLVE: '{"a.example.com":["10.0.0.5"],"b.example.com":["93.184.215.14","::1"]}' });
    expect(answers && Object.fromEntries(answers)).toEqual({ 'a.example.com': ['10.0.0.5'], 'b.example.com': ['93.184.215.14', '::1'] });
    for (const raw of [
      'not json',
      '[]',
      '{"A.example.com":["10.0.0.5"]}',
      '{"a.example.com":[]}',
      '{"a.example.com":["a.example.org"]}',
      '{"a.example.com":"10.0.0.5"}',
    ]) {
      expect(() => webhookTestResolve({ WEBHOOK_TEST_RESOLVE: raw }), raw).toThrow(/WEBHOOK_TEST_RESOLVE/);
    }
  });
});
