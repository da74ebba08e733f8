/**
 * The keys that sign and check list cursors (docs/operations.md#cursor-secret). Rotation with a
 * grace period needs more than one key at a time: cursors are signed with `signing` alone and
 * accepted when any key of `verifying` signed them.
 */
export interface CursorKeys {
  signing: string;
  /** `signing` first, then a key being introduced (`next`), then the retired one (`previous`). */
  verifying: readonly string[];
}

/** Shorter keys would make the HMAC guessable; the stage's generated secret has 48 characters. */
export const MIN_CURSOR_KEY_LENGTH = 32;

const ROTATION_FIELDS = ['current', 'next', 'previous'] as const;

/**
 * The secret's value as keys: either a bare key (what a freshly created stage holds) or the
 * rotation document `{"current": "…", "next"?: "…", "previous"?: "…"}`. Throws with the reason on
 * anything else, naming fields only, never a key.
 */
export function parseCursorSecret(value: string): CursorKeys {
  const trimmed = value.trim();
  // A generated key has no punctuation, so a value opening like JSON is meant as JSON.
  if (!/^[[{]/.test(trimmed)) return keysOf(checkedKey(trimmed, 'the secret'));
  let document: unknown;
  try {
    document = JSON.parse(trimmed);
  } catch {
    throw new Error('The cursor secret looks like JSON but is not valid JSON');
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) throw new Error('The cursor secret must be a key or a JSON object');
  const fields = document as Record<string, unknown>;
  const unknownFields = Object.keys(fields).filter((name) => !(ROTATION_FIELDS as readonly string[]).includes(name));
  if (unknownFields.length > 0) throw new Error(`The cursor secret has unknown fields: ${unknownFields.join(', ')}`);
  const [current, next, previous] = ROTATION_FIELDS.map((name) => (fields[name] === undefined ? undefined : checkedKey(fields[name], `"${name}"`)));
  if (current === undefined) throw new Error('The cursor secret has no "current" key');
  return keysOf(current, next, previous);
}

/** Keys from a single static key (local runtime and tests). */
export function singleCursorKey(key: string): CursorKeys {
  return keysOf(checkedKey(key, 'the cursor secret'));
}

function keysOf(signing: string, ...others: (string | undefined)[]): CursorKeys {
  const verifying = [signing, ...others.filter((key): key is string => key !== undefined && key !== signing)];
  return { signing, verifying: [...new Set(verifying)] };
}

function checkedKey(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.length < MIN_CURSOR_KEY_LENGTH) {
    throw new Error(`The cursor secret's ${name} must be a string of at least ${MIN_CURSOR_KEY_LENGTH} characters`);
  }
  return value;
}
