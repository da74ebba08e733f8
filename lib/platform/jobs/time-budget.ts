/**
 * The time budget of one invocation of a queue-driven background flow (docs/architecture.md
 * "Checkpoints and hand-offs"): a flow looks at the clock before every step and stops starting
 * steps when little is left, handing the rest of its work to a fresh message (`hand-off.ts`)
 * instead of racing the function's timeout.
 */

/** Stop starting a step when less than this is left of the invocation. */
export const TIME_MARGIN_MS = 10_000;
/** An invocation that starts with less than this left is not counted as one without progress. */
export const MIN_FAIR_RUN_MS = 40_000;

export class TimeBudget {
  /**
   * Whether the invocation had a fair share of time when the work began: a message picked up
   * late in a busy batch is handed on without holding that against its work.
   */
  readonly fairRun: boolean;

  /** `remainingMs` is the invocation's clock (e.g. the Lambda context's remaining time); it is read once here. */
  constructor(private readonly remainingMs: () => number) {
    this.fairRun = remainingMs() >= MIN_FAIR_RUN_MS;
  }

  /** Whether there is time to start another step. */
  hasTime(): boolean {
    return this.remainingMs() >= TIME_MARGIN_MS;
  }
}
