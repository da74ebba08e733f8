/**
 * `Accept` negotiation (RFC 9110 §12.5.1) among the media types a route offers. JSON routes
 * offer application/json (default), text/json and text/plain with the same JSON body.
 */

export type ResponseMediaType = 'application/json' | 'text/json' | 'text/plain' | 'image/svg+xml';

export const JSON_MEDIA_TYPES: readonly ResponseMediaType[] = ['application/json', 'text/json', 'text/plain'];

interface AcceptRange {
  type: string;
  subtype: string;
  quality: number;
  order: number;
}

function parseAccept(header: string): AcceptRange[] {
  const ranges: AcceptRange[] = [];
  header.split(',').forEach((part, order) => {
    const [range, ...params] = part.trim().split(';');
    const [type, subtype] = (range ?? '').trim().toLowerCase().split('/');
    if (!type || !subtype) return;
    let quality = 1;
    for (const param of params) {
      const [name, value] = param.trim().split('=');
      if (name?.trim().toLowerCase() === 'q') {
        const parsed = Number(value);
        quality = Number.isFinite(parsed) ? Math.min(Math.max(parsed, 0), 1) : 0;
      }
    }
    ranges.push({ type, subtype, quality, order });
  });
  return ranges;
}

function specificity(range: AcceptRange): number {
  if (range.type === '*') return 0;
  return range.subtype === '*' ? 1 : 2;
}

function qualityFor(mediaType: string, ranges: AcceptRange[]): number {
  const [type, subtype] = mediaType.split('/');
  let best: AcceptRange | undefined;
  for (const range of ranges) {
    const matches = (range.type === '*' || range.type === type) && (range.subtype === '*' || range.subtype === subtype);
    if (matches && (!best || specificity(range) > specificity(best))) best = range;
  }
  return best ? best.quality : 0;
}

/**
 * The offered media type the client prefers, the first offer on ties; `undefined` when the
 * client accepts none of them (→ 406). No or empty `Accept` means anything goes.
 */
export function negotiate<T extends string>(acceptHeader: string | undefined, offers: readonly T[]): T | undefined {
  if (acceptHeader === undefined || acceptHeader.trim() === '') return offers[0];
  const ranges = parseAccept(acceptHeader);
  if (ranges.length === 0) return offers[0];
  let chosen: T | undefined;
  let chosenQuality = 0;
  for (const offer of offers) {
    const quality = qualityFor(offer, ranges);
    if (quality > chosenQuality) {
      chosen = offer;
      chosenQuality = quality;
    }
  }
  return chosen;
}

const JSON_REQUEST_TYPE = /^(application\/json|text\/json|application\/[a-z0-9!#$&^_.+-]+\+json)$/;

/** JSON request bodies are accepted as application/json, text/json or application/*+json. */
export function isJsonRequestMediaType(contentTypeHeader: string | undefined): boolean {
  const essence = (contentTypeHeader ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return JSON_REQUEST_TYPE.test(essence);
}
