import { isIPv4 } from 'node:net';

/**
 * The rule for a URL this service stores on a customer's behalf and that must lead somewhere
 * public: an attachment link (docs/attachments.md "Links") and a webhook endpoint
 * (docs/webhooks.md "Verifying deliveries", address rules). Absolute `https`, no credentials, a
 * host name rather than an IP literal, and not a name that resolves only on a local machine or
 * network. Every check runs on what the WHATWG parser makes of the string, because that is what
 * a browser or an HTTP client follows: `https://0x7f.1/`, `https://2130706433/`,
 * `https://%6c%6fcalhost/` and localhost in full-width letters all look harmless as text and are
 * 127.0.0.1 or localhost once parsed.
 */

export type PublicUrlProblemCode = 'not-https' | 'credentials' | 'ip-literal' | 'private-host' | 'invalid-url' | 'too-long';

export interface PublicUrlProblem {
  code: PublicUrlProblemCode;
  message: string;
}

export const PUBLIC_URL_MAX_LENGTH = 2048;

/**
 * Names that resolve only on the caller's own machine or local network, or that are commonly kept
 * for internal DNS: a URL with one points at nothing public, or at something it should not.
 */
const PRIVATE_NAME_SUFFIXES = ['localhost', 'local', 'internal', 'localdomain', 'home.arpa'];

/**
 * The parser silently drops tabs and line breaks anywhere and controls or spaces at the ends, so
 * `https://exa\nmple.com/` passes as example.com while the stored text still carries the newline.
 * Refusing such input keeps the checked URL and the stored string the same URL.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const SILENTLY_REMOVED = /[\u0000-\u001f\u007f]|^ | $/u;

export interface PublicUrlOptions {
  /** How messages name the URL: "The link", "The endpoint URL". */
  subject: string;
  /**
   * A parsed URL admitted even though it is not https or names an IP (local development's
   * loopback webhook receivers); credentials and length are still checked.
   */
  exempt?: (url: URL) => boolean;
}

/** The parsed URL, or why it is refused. Never throws. */
export function checkPublicHttpsUrl(url: string, options: PublicUrlOptions): { ok: true; url: URL } | ({ ok: false } & PublicUrlProblem) {
  const refuse = (code: PublicUrlProblemCode, rest: string) => ({ ok: false as const, code, message: `${options.subject} ${rest}` });
  const tooLong = () => refuse('too-long', `must be at most ${PUBLIC_URL_MAX_LENGTH} characters long.`);
  // Checked before parsing too, so an oversized string is never handed to the parser.
  if (url.length > PUBLIC_URL_MAX_LENGTH) return tooLong();
  if (SILENTLY_REMOVED.test(url)) return refuse('invalid-url', 'must not contain control characters, line breaks or leading or trailing spaces.');
  const parsedUrl = parsed(url);
  if (!parsedUrl) return refuse('invalid-url', 'is not a valid absolute URL.');
  // Percent-encoding and IDNA can make the normalized form longer than what was sent.
  if (parsedUrl.href.length > PUBLIC_URL_MAX_LENGTH) return tooLong();
  if (parsedUrl.username !== '' || parsedUrl.password !== '') return refuse('credentials', 'must not contain a user name or password.');
  if (options.exempt?.(parsedUrl)) return { ok: true, url: parsedUrl };
  if (parsedUrl.protocol !== 'https:') return refuse('not-https', 'must be an https:// URL.');
  // The parser has already rewritten every IPv4 spelling (hex, octal, integer, short, trailing
  // dot) to dotted decimal and wraps every IPv6 address in brackets, so two checks cover them all.
  const hostname = parsedUrl.hostname;
  if (hostname.startsWith('[') || isIPv4(hostname)) return refuse('ip-literal', 'must use a host name, not an IP address.');
  // A trailing dot names the same host (`localhost.` is localhost), so it must not dodge the list.
  const name = hostname.replace(/\.+$/u, '');
  const isPrivate = !name.includes('.') || PRIVATE_NAME_SUFFIXES.some((suffix) => name === suffix || name.endsWith(`.${suffix}`));
  if (isPrivate) return refuse('private-host', 'must point to a public host name, not localhost, a local network name or a name without a dot.');
  return { ok: true, url: parsedUrl };
}

function parsed(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}
