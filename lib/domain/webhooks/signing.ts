// STAND-IN (not committed): the webhook-send branch provides the real module.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
export function generateWebhookSecret(): string { return `whsec_${randomBytes(32).toString('base64')}`; }
export function signatureHeaders(input: { eventId: string; timestampSeconds: number; body: string; secrets: readonly string[] }): Record<string, string> {
  const signatures = input.secrets.map((secret) => new Webhook(secret).sign(input.eventId, new Date(input.timestampSeconds * 1000), input.body));
  return { 'webhook-id': input.eventId, 'webhook-timestamp': String(input.timestampSeconds), 'webhook-signature': signatures.join(' ') };
}
