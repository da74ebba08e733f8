import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../core/errors.ts';
import { singleCursorKey, type CursorKeys } from './cursor-keys.ts';

/**
 * Opaque, signed cursors (docs/api-guide.md "Lists and cursors"): `<payload>.<hmac>`, both base64url. A cursor is
 * bound to the organization, the endpoint and the filters it was issued for; any change to it,
 * or use under another binding, is a 400 `customer-api.pagination.invalid-cursor`.
 */

export interface CursorBinding {
  organizationId: string;
  endpoint: string;
  filters: Record<string, string | number | boolean | undefined>;
}

const VERSION = 1;

function bindingDigest(binding: CursorBinding): string {
  const filters = Object.keys(binding.filters)
    .sort()
    .filter((name) => binding.filters[name] !== undefined)
    .map((name) => `${name}=${String(binding.filters[name])}`);
  return createHash('sha256')
    .update(JSON.stringify([binding.organizationId, binding.endpoint, filters]))
    .digest('base64url')
    .slice(0, 22);
}

function sign(payload: string, secret: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

function signedWith(payload: string, signature: string, key: string): boolean {
  const expected = Buffer.from(sign(payload, key));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export function invalidCursorError(): ApiError {
  return new ApiError(400, 'customer-api.pagination.invalid-cursor', 'Invalid cursor', {
    detail: 'The cursor is not one this endpoint issued for these filters. Send `page.nextCursor` back unchanged, with the same filters.',
  });
}

/** Where the keys come from: one static key, or a keyring that reads them from the secret store over time. */
export interface CursorKeySource {
  /** The keys in force now. */
  keys(): CursorKeys;
  /**
   * Reads the keys again because a cursor matched none in hand (a key introduced since the last
   * read); true when it read them, so the cursor is worth checking again. A keyring bounds how
   * often this reads.
   */
  rereadAfterMismatch?(): Promise<boolean>;
}

export class CursorCodec {
  private readonly source: CursorKeySource;

  /** `keys`: one static key (checked now), or the keyring of lib/platform/config/cursors.ts. */
  constructor(keys: string | CursorKeySource) {
    if (typeof keys === 'string') {
      const single = singleCursorKey(keys);
      this.source = { keys: () => single };
    } else {
      this.source = keys;
    }
  }

  encode<P>(position: P, binding: CursorBinding): string {
    const payload = Buffer.from(JSON.stringify({ v: VERSION, b: bindingDigest(binding), p: position })).toString('base64url');
    return `${payload}.${sign(payload, this.source.keys().signing)}`;
  }

  /**
   * The position inside a cursor, or a 400 for anything tampered, foreign or malformed. A cursor
   * no key in hand signed may carry a key this container has not read yet (during a rotation,
   * docs/operations.md#cursor-secret): the keys are read again once before it is refused.
   */
  async decode(cursor: string, binding: CursorBinding): Promise<unknown> {
    const [payload, signature, ...rest] = cursor.split('.');
    if (!payload || !signature || rest.length > 0) throw invalidCursorError();
    const signedByKeyInHand = () => this.source.keys().verifying.some((key) => signedWith(payload, signature, key));
    if (!signedByKeyInHand() && !((await this.source.rereadAfterMismatch?.()) && signedByKeyInHand())) throw invalidCursorError();
    let decoded: { v?: unknown; b?: unknown; p?: unknown };
    try {
      decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw invalidCursorError();
    }
    if (decoded.v !== VERSION || decoded.b !== bindingDigest(binding)) throw invalidCursorError();
    return decoded.p;
  }
}
