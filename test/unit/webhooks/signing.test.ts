import { createHmac } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, signatureHeaders } from '../../../lib/webhooks/domain/signing.ts';

const body =
  '{"id":"evt_01J","type":"item.created","version":1,"occurredAt":"2026-11-26T12:00:00.000Z","organizationId":"org_1","data":{"item":{"sku":"Ä-1"}}}';
const now = (): number => Math.floor(Date.now() / 1000);

describe('generateWebhookSecret', () => {
  it('is whsec_ and the base64 of 32 random bytes, different every time', () => {
    // Act
    const secrets = Array.from({ length: 50 }, generateWebhookSecret);

    // Assess
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    }
    expect(new Set(secrets).size).toBe(50);
  });
});

describe('signatureHeaders', () => {
  it('sets webhook-id to the event id and webhook-timestamp to the attempt second', () => {
    // Act
    const headers = signatureHeaders({ eventId: 'evt_01J', timestampSeconds: 1_790_000_000, body, secrets: [generateWebhookSecret()] });

    // Assess
    expect(Object.keys(headers).sort()).toEqual(['webhook-id', 'webhook-signature', 'webhook-timestamp']);
    expect(headers['webhook-id']).toBe('evt_01J');
    expect(headers['webhook-timestamp']).toBe('1790000000');
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('is the HMAC-SHA256 of "<id>.<timestamp>.<body>" keyed by the decoded secret', () => {
    // Prepare
    const secret = generateWebhookSecret();

    // Act
    const headers = signatureHeaders({ eventId: 'evt_01J', timestampSeconds: 1_790_000_000, body, secrets: [secret] });

    // Assess
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`evt_01J.1790000000.${body}`, 'utf8').digest('base64');
    expect(headers['webhook-signature']).toBe(`v1,${expected}`);
  });

  it('verifies with the standardwebhooks library', () => {
    // Prepare
    const secret = generateWebhookSecret();
    const headers = signatureHeaders({ eventId: 'evt_01J', timestampSeconds: now(), body, secrets: [secret] });

    // Act
    const payload = new Webhook(secret).verify(body, headers);

    // Assess
    expect(payload).toEqual(JSON.parse(body));
  });

  it('during a rotation carries two signatures, and each secret of the pair verifies on its own', () => {
    // Prepare
    const [newSecret, oldSecret] = [generateWebhookSecret(), generateWebhookSecret()];

    // Act
    const headers = signatureHeaders({ eventId: 'evt_01J', timestampSeconds: now(), body, secrets: [newSecret, oldSecret] });

    // Assess
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(newSecret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(oldSecret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('does not verify under another secret, another body or another id', () => {
    // Prepare
    const secret = generateWebhookSecret();
    const headers = signatureHeaders({ eventId: 'evt_01J', timestampSeconds: now(), body, secrets: [secret] });

    // Act + Assess
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(secret).verify(body.replace('Ä-1', 'A-1'), headers)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'evt_other' })).toThrow(WebhookVerificationError);
  });

  it('refuses to sign with no secret', () => {
    expect(() => signatureHeaders({ eventId: 'evt_01J', timestampSeconds: now(), body, secrets: [] })).toThrow();
  });
});
