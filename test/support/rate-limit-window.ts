/**
 * Fixed 60 s windows reset on every whole minute (lib/platform/rate-limit/fixed-window.ts). A test
 * that spends a budget must not straddle a reset, or the counter starts over halfway; these
 * helpers let it start early enough in a window. The local server runs on this machine's clock.
 */

export const WINDOW_MS = 60_000;

/** Milliseconds until the current window resets. */
export function msLeftInWindow(nowMs = Date.now()): number {
  return WINDOW_MS - (nowMs % WINDOW_MS);
}

/** Whole seconds until the current window resets (what Retry-After should say), at least 1. */
export function secondsLeftInWindow(nowMs = Date.now()): number {
  return Math.max(1, Math.ceil(msLeftInWindow(nowMs) / 1000));
}

/** Returns at once when at least `seconds` remain in the window, else after the next reset. */
export async function awaitWindowWithAtLeast(seconds: number): Promise<void> {
  const left = msLeftInWindow();
  if (left >= seconds * 1000) return;
  // A little past the boundary, so the server's first request surely lands in the new window.
  await new Promise((resolve) => setTimeout(resolve, left + 250));
}

/** Epoch-aligned start (ms) of the window holding `nowMs`. */
export function windowStartMs(nowMs = Date.now()): number {
  return nowMs - (nowMs % WINDOW_MS);
}

/** Margin before a reset after which an attempt stops sending: a request in flight then might land in the next window. */
const SAFETY_MS = 1_000;

/**
 * Runs `attempt` inside one window without waiting up front: the attempt polls `inWindow()`
 * before each request and gives up (returns undefined) once the window it started in is about
 * to reset. It then runs once more from the start of the next window, with the whole 60 s. This
 * costs on average far less than always waiting for enough window to be left. `attempt` must
 * use fresh API keys each time.
 */
export async function withinOneWindow<T>(attempt: (inWindow: () => boolean) => Promise<T | undefined>): Promise<T> {
  for (let round = 1; round <= 2; round += 1) {
    await awaitWindowWithAtLeast(round === 1 ? 2 : WINDOW_MS / 1000);
    const resetAt = windowStartMs() + WINDOW_MS;
    const inWindow = () => Date.now() < resetAt - SAFETY_MS;
    const result = await attempt(inWindow);
    if (result !== undefined && inWindow()) return result;
  }
  throw new Error('The budget could not be spent within one 60 s window, even from its start.');
}

/** Parses `"general";r=17;t=42, "submission";…` (RateLimit) or `…;q=1200;w=60` (RateLimit-Policy). */
export function parseRateLimitField(value: string | null | undefined): Record<string, Record<string, number>> {
  const parsed: Record<string, Record<string, number>> = {};
  for (const item of (value ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const [name = '', ...params] = item.split(';');
    parsed[name.replace(/^"|"$/g, '')] = Object.fromEntries(
      params.map((param) => {
        const [key = '', raw = ''] = param.split('=');
        return [key, Number(raw)];
      }),
    );
  }
  return parsed;
}
