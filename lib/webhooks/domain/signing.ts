import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks signing (docs/webhooks.md "Verifying deliveries"). The secret is `whsec_`
 * plus the base64 of 32 random bytes; the signature is `v1,` + base64 HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<body>` keyed by the secret's decoded bytes. The
 * `standardwebhooks` package computes it, so the sender and every receiver that verifies with the
 * same package agree by construction.
 */

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

const SECRET_BYTES = 32;

export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

export interface SignatureInput {
  /** The event id: the same on every attempt, so receivers de-duplicate by it. */
  eventId: string;
  /** Unix seconds of this attempt. */
  timestampSeconds: number;
  /** The exact bytes sent. */
  body: string;
  /** Every secret that currently signs: one, or two during a rotation's overlap (newest first). */
  secrets: readonly string[];
}

/** The three Standard Webhooks headers; one `v1,` signature per secret, space-separated. */
export function signatureHeaders(input: SignatureInput): Record<string, string> {
  if (input.secrets.length === 0) throw new Error('signatureHeaders needs at least one secret');
  const timestamp = new Date(input.timestampSeconds * 1000);
  const signatures = input.secrets.map((secret) => new Webhook(secret).sign(input.eventId, timestamp, input.body));
  return {
    'webhook-id': input.eventId,
    'webhook-timestamp': String(Math.floor(input.timestampSeconds)),
    'webhook-signature': signatures.join(' '),
  };
}
