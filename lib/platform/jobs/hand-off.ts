/**
 * Handing the rest of a background flow's work to a fresh message (docs/architecture.md
 * "Checkpoints and hand-offs"). A message carries how many invocations in a row handed the work
 * on without progress; work that keeps making none is given up on instead of looping forever.
 */

/** Work that makes no progress in this many invocations in a row is given up on. */
export const MAX_HANDOFFS_WITHOUT_PROGRESS = 3;

/** What a hand-off needs from the flow: how to send the rest on, and how to give up on it. */
export interface HandOffPort<GiveUp> {
  /** Sends the rest of the work to a new message that carries `handoffsWithoutProgress`. */
  continueLater(handoffsWithoutProgress: number): Promise<void>;
  /** Ends the work as failed: it made no progress in too many invocations in a row. */
  giveUp(): Promise<GiveUp>;
}

/**
 * How many invocations in a row have now handed the work on without progress: none once this
 * one made progress; one more when it had a fair share of time (`TimeBudget.fairRun`) and made
 * none; unchanged otherwise.
 */
export function handoffsWithoutProgress(run: { previous: number; progressed: boolean; fairRun: boolean }): number {
  if (run.progressed) return 0;
  return run.fairRun ? run.previous + 1 : run.previous;
}

/** Sends the rest of the work on, or gives up on it once it has made no progress too often. */
export async function handOff<GiveUp>(port: HandOffPort<GiveUp>, handoffs: number): Promise<'continued' | GiveUp> {
  if (handoffs >= MAX_HANDOFFS_WITHOUT_PROGRESS) return port.giveUp();
  await port.continueLater(handoffs);
  return 'continued';
}
