import { isIPv4 } from 'node:net';

/**
 * Link attachments (docs/attachments.md "Links"): the server never fetches a link, it only refuses
 * the ones that would send a reader's browser somewhere unsafe or inside a network. Every check
 * runs on what the WHATWG parser makes of the string, because that is what a browser follows:
 * `https://0x7f.1/`, `https://%6c%6fcalhost/` and localhost in full-width letters all look harmless
 * as text and are 127.0.0.1 or localhost once parsed.
 */

export type LinkUrlProblem = { code: 'not-https' | 'credentials' | 'ip-literal' | 'private-host' | 'invalid-url' | 'too-long'; message: string };

export const LINK_URL_MAX_LENGTH = 2048;

/**
 * Names that resolve only on the reader's own machine or local network, or that are commonly kept
 * for internal DNS: a link to one points at nothing public, or at something it should not.
 */
const PRIVATE_NAME_SUFFIXES = ['localhost', 'local', 'internal', 'localdomain', 'home.arpa'];

/**
 * The parser silently drops tabs and line breaks anywhere and controls or spaces at the ends, so
 * `https://exa\nmple.com/` passes as example.com while the stored text still carries the newline.
 * Refusing such input keeps the checked URL and the stored string the same link.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const SILENTLY_REMOVED = /[\u0000-\u001f\u007f]|^ | $/u;

function problem(code: LinkUrlProblem['code'], message: string): LinkUrlProblem {
  return { code, message };
}

function parsed(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** The link's problem, or undefined when it is acceptable. Never throws. */
export function linkUrlProblem(url: string): LinkUrlProblem | undefined {
  // Checked before parsing too, so an oversized string is never handed to the parser.
  if (url.length > LINK_URL_MAX_LENGTH) return tooLong();
  if (SILENTLY_REMOVED.test(url)) {
    return problem('invalid-url', 'The link must not contain control characters, line breaks or leading or trailing spaces.');
  }
  const parsedUrl = parsed(url);
  if (!parsedUrl) return problem('invalid-url', 'The link is not a valid absolute URL.');
  // Percent-encoding and IDNA can make the normalized form longer than what was sent.
  if (parsedUrl.href.length > LINK_URL_MAX_LENGTH) return tooLong();
  if (parsedUrl.protocol !== 'https:') return problem('not-https', 'The link must be an https:// URL.');
  if (parsedUrl.username !== '' || parsedUrl.password !== '') {
    return problem('credentials', 'The link must not contain a user name or password.');
  }
  // The parser has already rewritten every IPv4 spelling (hex, octal, integer, short, trailing
  // dot) to dotted decimal and wraps every IPv6 address in brackets, so two checks cover them all.
  const hostname = parsedUrl.hostname;
  if (hostname.startsWith('[') || isIPv4(hostname)) {
    return problem('ip-literal', 'The link must use a host name, not an IP address.');
  }
  // A trailing dot names the same host (`localhost.` is localhost), so it must not dodge the list.
  const name = hostname.replace(/\.+$/u, '');
  const isPrivate = !name.includes('.') || PRIVATE_NAME_SUFFIXES.some((suffix) => name === suffix || name.endsWith(`.${suffix}`));
  if (isPrivate) {
    return problem('private-host', 'The link must point to a public host name, not localhost, a local network name or a name without a dot.');
  }
  return undefined;
}

function tooLong(): LinkUrlProblem {
  return problem('too-long', `The link must be at most ${LINK_URL_MAX_LENGTH} characters long.`);
}
