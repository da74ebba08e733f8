/**
 * Waits for `work` until `msLeft()` falls to zero (checked every `pollMs`): the value, or
 * `{ overran: true }` when the deadline came first. The work itself is not cancelled (JavaScript
 * cannot stop a promise); its later failure is handed to `onLateError` instead of going unobserved.
 */
export async function settleWithin<T>(
  work: Promise<T>,
  msLeft: () => number,
  onLateError: (error: unknown) => void,
  pollMs = 250,
): Promise<{ overran: false; value: T } | { overran: true }> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<{ overran: true }>((resolve) => {
    const check = () => (msLeft() <= 0 ? resolve({ overran: true }) : (timer = setTimeout(check, Math.min(pollMs, Math.max(1, msLeft())))));
    check();
  });
  const done = work.then((value) => ({ overran: false as const, value }));
  try {
    const result = await Promise.race([done, deadline]);
    if (result.overran) done.catch(onLateError);
    return result;
  } finally {
    clearTimeout(timer);
  }
}
