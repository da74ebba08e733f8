import { isIP } from 'node:net';
import { checkPublicHttpsUrl } from '../../platform/core/public-https-url.ts';
import { nonPublicReason } from './address-ranges.ts';

/**
 * The two gates of a webhook URL (docs/webhooks.md "Verifying deliveries", address rules): the URL
 * when it is registered (and again before each attempt), and every address its host resolves to
 * at each attempt. The delivery connects only to an address that passed, so a DNS answer that
 * changes between the check and the connection (rebinding) cannot redirect it.
 */

export { nonPublicReason } from './address-ranges.ts';

/** True for a globally reachable unicast address; false for every special range and for non-addresses. */
export function isPublicAddress(address: string): boolean {
  return nonPublicReason(address) === null;
}

/** The only hosts `WEBHOOK_ALLOW_LOOPBACK=1` (local development) admits beyond public ones, as the URL parser writes them. */
const DEVELOPMENT_LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]']);

/**
 * Why a resolved address may not be connected to, or null when it may: public, or with
 * `allowLoopback` exactly 127.0.0.1 or ::1 (not the rest of 127/8, not a mapped form).
 */
export function refusedAddressReason(address: string, options: { allowLoopback: boolean }): string | null {
  if (options.allowLoopback && isDevelopmentLoopbackAddress(address)) return null;
  return nonPublicReason(address);
}

function isDevelopmentLoopbackAddress(address: string): boolean {
  if (isIP(address) === 0) return false;
  const host = isIP(address) === 6 ? `[${address}]` : address;
  try {
    return DEVELOPMENT_LOOPBACK_HOSTS.has(new URL(`http://${host}/`).hostname);
  } catch {
    return false;
  }
}

export type WebhookUrlVetting = { ok: true; url: URL } | { ok: false; code: string; message: string };

/**
 * The registration rule: absolute https, no credentials, a public host name (the link-URL rule),
 * at most 2048 characters. With `allowLoopback` (local development only, never on a stage),
 * `http://127.0.0.1:<port>/…` and `http://[::1]:<port>/…` (an explicit port) are admitted too;
 * every other IP, scheme or private name stays refused (docs/webhooks.md "Local development").
 * Port 0 is refused in both: no server listens on it, so no attempt could ever succeed.
 */
export function vetWebhookUrl(url: string, options: { allowLoopback: boolean }): WebhookUrlVetting {
  const checked = checkPublicHttpsUrl(url, {
    subject: 'The endpoint URL',
    exempt: options.allowLoopback ? isDevelopmentLoopbackUrl : undefined,
  });
  if (!checked.ok) return { ok: false, code: checked.code, message: checked.message };
  // The parser writes `:0`, `:00`, … as port "0".
  if (checked.url.port === '0') return { ok: false, code: 'invalid-url', message: 'The endpoint URL has port 0, on which no server can be reached.' };
  return checked;
}

function isDevelopmentLoopbackUrl(url: URL): boolean {
  return url.protocol === 'http:' && url.port !== '' && DEVELOPMENT_LOOPBACK_HOSTS.has(url.hostname);
}
