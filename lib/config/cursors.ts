import { requiredEnv } from './env.ts';

/** The HMAC secret that signs list cursors; deployments set it, the local runtime generates one. */
export function cursorSecret(): string {
  return requiredEnv('CURSOR_SECRET');
}
