import { checkPublicHttpsUrl, PUBLIC_URL_MAX_LENGTH, type PublicUrlProblem } from '../../platform/core/public-https-url.ts';

/**
 * Link attachments (docs/attachments.md "Links"): the server never fetches a link, it only refuses
 * the ones that would send a reader's browser somewhere unsafe or inside a network. The rule is
 * the one webhook endpoints share (lib/platform/core/public-https-url.ts).
 */

export type LinkUrlProblem = PublicUrlProblem;

export const LINK_URL_MAX_LENGTH = PUBLIC_URL_MAX_LENGTH;

/** The link's problem, or undefined when it is acceptable. Never throws. */
export function linkUrlProblem(url: string): LinkUrlProblem | undefined {
  const checked = checkPublicHttpsUrl(url, { subject: 'The link' });
  return checked.ok ? undefined : { code: checked.code, message: checked.message };
}
