import { CursorKeyring } from '../pagination/cursor-keyring.ts';
import type { CursorKeySource } from '../pagination/cursor.ts';
import { singleCursorKey } from '../pagination/cursor-keys.ts';
import { describeError, log } from '../observability/log.ts';
import { secretsManagerReader } from '../aws/cursor-secret.ts';
import { CURSOR_SECRET_ARN_ENV, CURSOR_SECRET_ENV } from './cursor-env.ts';
import { optionalEnv } from './env.ts';

/** How long a container uses the keys it read before reading the secret again. */
export const CURSOR_SECRET_REFRESH_SECONDS = 300;

/**
 * The cursor keys of this container, for `new CursorCodec(await cursorKeys())` at cold start.
 * With `CURSOR_SECRET_ARN` the keys come from Secrets Manager, read once now and again every
 * `CURSOR_SECRET_REFRESH_SECONDS` while the container serves lists; without it, from
 * `CURSOR_SECRET` (the local runtime generates one per state directory).
 */
export async function cursorKeys(): Promise<CursorKeySource> {
  const secretArn = optionalEnv(CURSOR_SECRET_ARN_ENV);
  if (secretArn === undefined) {
    const keys = singleCursorKey(optionalEnv(CURSOR_SECRET_ENV) ?? missingSecret());
    return { keys: () => keys };
  }
  const keyring = await CursorKeyring.load({
    fetchSecret: secretsManagerReader(secretArn),
    refreshAfterMs: CURSOR_SECRET_REFRESH_SECONDS * 1000,
    onRefreshFailed: (error) => log('error', 'could not read the cursor secret; the keys in hand stay in force', describeError(error)),
  });
  return keyring;
}

function missingSecret(): never {
  throw new Error(`Missing required environment variable ${CURSOR_SECRET_ARN_ENV} (on AWS) or ${CURSOR_SECRET_ENV} (locally)`);
}
