import { describe, expect, it } from 'vitest';
import { CursorCodec, type CursorBinding } from '../../../lib/platform/pagination/cursor.ts';
import { parseCursorSecret, type CursorKeys } from '../../../lib/platform/pagination/cursor-keys.ts';
import { CursorKeyring } from '../../../lib/platform/pagination/cursor-keyring.ts';

const A = 'a'.repeat(48);
const B = 'b'.repeat(48);
const binding: CursorBinding = { organizationId: 'org_a', endpoint: 'GET /v1/events', filters: {} };
const invalidCursor = { code: 'customer-api.pagination.invalid-cursor' };

describe('parseCursorSecret', () => {
  it('takes a bare key as the only key (what a new stage holds)', () => {
    expect(parseCursorSecret(A)).toEqual({ signing: A, verifying: [A] });
  });

  it('signs with "current" and also accepts "next" and "previous"', () => {
    expect(parseCursorSecret(JSON.stringify({ current: B, previous: A }))).toEqual({ signing: B, verifying: [B, A] });
    expect(parseCursorSecret(JSON.stringify({ current: A, next: B }))).toEqual({ signing: A, verifying: [A, B] });
  });

  it.each([
    ['a short bare key', 'short'],
    ['invalid JSON', '{"current": '],
    ['no current key', JSON.stringify({ previous: A })],
    ['a short previous key', JSON.stringify({ current: A, previous: 'x' })],
    ['a non-string key', JSON.stringify({ current: 42 })],
    ['an unknown field', JSON.stringify({ current: A, old: B })],
    ['an array', JSON.stringify([A])],
  ])('refuses %s without quoting any key', (_label, value) => {
    let message = '';
    try {
      parseCursorSecret(value);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).not.toBe('');
    expect(message).not.toContain(A);
    expect(message).not.toContain(B);
  });
});

describe('CursorCodec with several keys', () => {
  it('accepts cursors signed by any verifying key and signs with the signing key only', async () => {
    // Prepare
    let keys: CursorKeys = parseCursorSecret(A);
    const codec = new CursorCodec({ keys: () => keys });
    const signedWithA = codec.encode(7, binding);

    // Act: promote B, keep A as previous
    keys = parseCursorSecret(JSON.stringify({ current: B, previous: A }));
    const signedWithB = codec.encode(8, binding);

    // Assess
    await expect(codec.decode(signedWithA, binding)).resolves.toBe(7);
    await expect(new CursorCodec(B).decode(signedWithB, binding)).resolves.toBe(8);
    await expect(new CursorCodec(A).decode(signedWithB, binding)).rejects.toMatchObject(invalidCursor);
  });

  it('refuses a retired key once "previous" is dropped', async () => {
    const signedWithA = new CursorCodec(A).encode(7, binding);
    const codec = new CursorCodec({ keys: () => parseCursorSecret(JSON.stringify({ current: B })) });
    await expect(codec.decode(signedWithA, binding)).rejects.toMatchObject(invalidCursor);
  });
});

/** A secret store double that records every read; its value and failures are set by the test. */
function secretStore(initial: string) {
  const store = { value: initial, failing: false, reads: 0 };
  const fetchSecret = async () => {
    store.reads += 1;
    if (store.failing) throw new Error('ThrottlingException');
    return store.value;
  };
  return { store, fetchSecret };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('CursorKeyring', () => {
  it('reads the secret once at load and not again within the refresh period', async () => {
    // Prepare
    let now = 0;
    const { store, fetchSecret } = secretStore(A);
    const keyring = await CursorKeyring.load({ fetchSecret, refreshAfterMs: 300_000, now: () => now });

    // Act
    for (let request = 0; request < 1000; request += 1) {
      now += 100;
      keyring.keys();
    }
    await settle();

    // Assess
    expect(store.reads).toBe(1);
  });

  it('re-reads in the background once due; the request that triggers it still gets the keys in hand', async () => {
    // Prepare
    let now = 0;
    const { store, fetchSecret } = secretStore(A);
    const keyring = await CursorKeyring.load({ fetchSecret, refreshAfterMs: 300_000, now: () => now });
    store.value = JSON.stringify({ current: A, next: B });

    // Act
    now = 300_000;
    const during = keyring.keys();
    keyring.keys();
    await settle();
    const after = keyring.keys();

    // Assess
    expect(during.verifying).toEqual([A]);
    expect(after.verifying).toEqual([A, B]);
    expect(store.reads).toBe(2);
  });

  it('keeps the keys in hand when a refresh fails, and retries after the retry delay', async () => {
    // Prepare
    let now = 0;
    const failures: unknown[] = [];
    const { store, fetchSecret } = secretStore(A);
    const keyring = await CursorKeyring.load({
      fetchSecret,
      refreshAfterMs: 300_000,
      retryAfterMs: 10_000,
      now: () => now,
      onRefreshFailed: (error) => failures.push(error),
    });
    store.failing = true;

    // Act
    now = 300_000;
    keyring.keys();
    await settle();
    now += 5_000;
    const whileWaiting = keyring.keys();
    await settle();
    store.failing = false;
    store.value = B;
    now += 5_000;
    keyring.keys();
    await settle();

    // Assess
    expect(whileWaiting.signing).toBe(A);
    expect(failures).toHaveLength(1);
    expect(store.reads).toBe(3);
    expect(keyring.keys().signing).toBe(B);
  });

  it('starts even when the first read fails; lists then fail until a read succeeds', async () => {
    // Prepare
    let now = 0;
    const { store, fetchSecret } = secretStore(A);
    store.failing = true;

    // Act
    const keyring = await CursorKeyring.load({ fetchSecret, refreshAfterMs: 300_000, retryAfterMs: 1_000, now: () => now });

    // Assess
    expect(() => keyring.keys()).toThrow(/could not be read/);
    store.failing = false;
    now = 1_000;
    expect(() => keyring.keys()).toThrow(/could not be read/);
    await settle();
    expect(keyring.keys().signing).toBe(A);
  });

  it('treats an unusable value like a failed read (the keys in hand stay)', async () => {
    let now = 0;
    const { store, fetchSecret } = secretStore(A);
    const keyring = await CursorKeyring.load({ fetchSecret, refreshAfterMs: 1_000, now: () => now });
    store.value = JSON.stringify({ previous: B });
    now = 1_000;
    keyring.keys();
    await settle();
    expect(keyring.keys()).toEqual({ signing: A, verifying: [A] });
  });
});

describe('a container idle since before a rotation', () => {
  it('reads the keys again for a cursor signed with a key it has not seen, then accepts it', async () => {
    // Prepare: the container read {current: A} and sat idle, less than the refresh period.
    let now = 0;
    const { store, fetchSecret } = secretStore(A);
    const keyring = await CursorKeyring.load({ fetchSecret, refreshAfterMs: 300_000, now: () => now });
    const codec = new CursorCodec(keyring);
    store.value = JSON.stringify({ current: B, previous: A });
    const signedElsewhere = new CursorCodec(B).encode(9, binding);
    now = 60_000;

    // Act
    const position = await codec.decode(signedElsewhere, binding);

    // Assess
    expect(position).toBe(9);
    expect(store.reads).toBe(2);
  });

  it('does not read the secret for every forged cursor: at most once per 30 s', async () => {
    // Prepare
    let now = 0;
    const { store, fetchSecret } = secretStore(A);
    const keyring = await CursorKeyring.load({ fetchSecret, refreshAfterMs: 300_000, now: () => now });
    const codec = new CursorCodec(keyring);
    const forged = new CursorCodec('f'.repeat(48)).encode(1, binding);
    now = 40_000;

    // Act
    const outcomes = await Promise.allSettled(Array.from({ length: 50 }, () => codec.decode(forged, binding)));
    now = 50_000;
    await codec.decode(forged, binding).catch(() => undefined);
    now = 71_000;
    await codec.decode(forged, binding).catch(() => undefined);

    // Assess
    expect(outcomes.every((outcome) => outcome.status === 'rejected')).toBe(true);
    expect(store.reads).toBe(3);
  });

  it('refuses the cursor without waiting when the store cannot be read', async () => {
    let now = 0;
    const { store, fetchSecret } = secretStore(A);
    const keyring = await CursorKeyring.load({ fetchSecret, refreshAfterMs: 300_000, now: () => now });
    store.failing = true;
    now = 60_000;
    await expect(new CursorCodec(keyring).decode(new CursorCodec(B).encode(1, binding), binding)).rejects.toMatchObject(invalidCursor);
    expect(keyring.keys().signing).toBe(A);
  });
});
