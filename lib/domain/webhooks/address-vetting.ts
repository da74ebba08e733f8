// STAND-IN (not committed): the webhook-send branch provides the real module.
import { isIP } from 'node:net';
export function isPublicAddress(address: string): boolean {
  return !/^(127\.|10\.|192\.168\.|169\.254\.|0\.|::1$|::$|fe80:|fc|fd)/i.test(address);
}
export function vetWebhookUrl(url: string, options: { allowLoopback: boolean }): { ok: true; url: URL } | { ok: false; code: string; message: string } {
  let parsed: URL;
  try { parsed = new URL(url); } catch { return { ok: false, code: 'invalid-url', message: 'Not a URL.' }; }
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (options.allowLoopback && parsed.protocol === 'http:' && (host === '127.0.0.1' || host === '::1') && parsed.port !== '') return { ok: true, url: parsed };
  if (parsed.protocol !== 'https:') return { ok: false, code: 'not-https', message: 'Must be https.' };
  if (parsed.username || parsed.password) return { ok: false, code: 'credentials', message: 'No credentials.' };
  if (isIP(host)) return { ok: false, code: 'ip-literal', message: 'No IP literal.' };
  if (/(^|\.)localhost$|\.local$|\.internal$/.test(host)) return { ok: false, code: 'private-host', message: 'Private host.' };
  return { ok: true, url: parsed };
}
