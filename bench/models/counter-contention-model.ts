import { Agenda, type LatencyProfile, latencySampler, quantile, SINGLE_ITEM_REQUEST, seededRandom, transactionLatency } from './simulation.ts';

export { seededRandom, latencySampler, type LatencyProfile } from './simulation.ts';

/**
 * A deterministic discrete-event model of one organization's writers contending for its event
 * sequence counter (docs/performance.md "Scaling one tenant"). It replays the protocol of
 * lib/platform/dynamo/transaction-writer.ts against a model of DynamoDB's counter item, so the ceiling the
 * counter puts on one tenant can be reasoned about with AWS-like latencies that DynamoDB Local
 * cannot reproduce. Nothing at run time imports it: the bench (`tenant ceiling` suite) and its
 * unit test do. It lives in lib/ because bench/ and test/ may not import each other.
 *
 * The protocol modelled, per writer (one writer = one container, so one sequence hint each):
 * - attempt 1 numbers its events from the writer's hint; with no hint it reads the counter first;
 * - a transaction that reaches the counter while another transaction holds it (between its
 *   prepare and its commit) is cancelled with TransactionConflict;
 * - one whose expected value is stale is cancelled with ConditionalCheckFailed and learns the
 *   counter's value (ReturnValuesOnConditionCheckFailure); after a hinted attempt it retries at
 *   once with that value;
 * - every other cancellation backs off `random × min(100, 5 × 2^attempt)` ms and reads the
 *   counter afresh; after 25 attempts the command gives up.
 */

export interface WorkloadProfile {
  name: string;
  /** One TransactWriteItems round trip as the client sees it. */
  transaction: LatencyProfile;
  /** One strongly consistent GetItem of the counter. */
  counterRead: LatencyProfile;
  /** Time a writer spends building a command's plan before each attempt. */
  buildMs: number;
  /** Share of a transaction's round trip before it reaches the counter (request, prepare). */
  arrivalShare: number;
  /** Share after its commit (the response's way back). */
  returnShare: number;
  rowsPerTransaction: number;
  eventsPerTransaction: number;
}

export interface SimulationOptions {
  workload: WorkloadProfile;
  writers: number;
  durationMs: number;
  seed: number;
}

export interface SimulationResult {
  writers: number;
  commits: number;
  transactionAttempts: number;
  /** Cancelled transactions (either cause) ÷ all transactions sent. */
  conflictRate: number;
  gaveUp: number;
  transactionsPerSecond: number;
  rowsPerSecond: number;
  eventsPerSecond: number;
  /** A command's latency from its first build to its commit's response, retries included. */
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** No interleaving of any number of writers can commit faster (see `minimumCommitGapMs`). */
  serialBoundTransactionsPerSecond: number;
}

export const MAX_ATTEMPTS = 25;

/**
 * The shortest possible time between two commits of one organization. The next commit must
 * number its events from the previous one's, so its writer must first learn that value (its own
 * commit's response or a cancellation that came after the commit, then a build; or a counter
 * read), then reach the counter and hold it until its own commit. No writer count shortens that chain.
 */
export function minimumCommitGapMs(workload: WorkloadProfile): number {
  const floor = workload.transaction.floorMs;
  // A counter read comes after the build, so that path skips it.
  const learnAndBuild = Math.min(
    floor * workload.returnShare + workload.buildMs,
    floor * (1 - workload.arrivalShare) + workload.buildMs,
    workload.counterRead.floorMs / 2,
  );
  return learnAndBuild + floor * (1 - workload.returnShare);
}

type Outcome = { kind: 'committed' } | { kind: 'stale'; counter: number } | { kind: 'conflict' };

export function simulateTenantWriters({ workload, writers, durationMs, seed }: SimulationOptions): SimulationResult {
  const random = seededRandom(seed);
  const sampleTransaction = latencySampler(workload.transaction, random);
  const readLatency = latencySampler(workload.counterRead, random);
  const agenda = new Agenda();
  // The counter item as DynamoDB holds it: its committed value, and until when a prepared
  // transaction holds it.
  const counter = { value: 0, heldUntil: -1 };
  const latencies: number[] = [];
  let commits = 0;
  let transactionAttempts = 0;
  let cancelled = 0;
  let gaveUp = 0;

  const startWriter = () => {
    let hint: number | undefined;
    let commandStarted = 0;
    let attempt = 0;
    let reported: number | undefined;

    const startCommand = (now: number) => {
      if (now >= durationMs) return;
      commandStarted = now;
      attempt = 0;
      reported = undefined;
      nextAttempt(now);
    };

    const nextAttempt = (now: number) => {
      attempt += 1;
      agenda.at(now + workload.buildMs, () => {
        const built = now + workload.buildMs;
        const hinted = attempt === 1 ? hint : undefined;
        const known = hinted ?? reported;
        reported = undefined;
        if (known !== undefined) return send(built, known, hinted !== undefined);
        const readTook = readLatency();
        // The read is served half-way through its round trip and sees the committed value.
        agenda.at(built + readTook / 2, () => {
          const read = counter.value;
          agenda.at(built + readTook, () => send(built + readTook, read, false));
        });
      });
    };

    const send = (now: number, expected: number, usedHint: boolean) => {
      const took = sampleTransaction();
      const arrives = now + took * workload.arrivalShare;
      const committing = now + took * (1 - workload.returnShare);
      agenda.at(arrives, () => {
        let outcome: Outcome;
        if (counter.heldUntil > arrives) outcome = { kind: 'conflict' };
        else if (counter.value !== expected) outcome = { kind: 'stale', counter: counter.value };
        else {
          outcome = { kind: 'committed' };
          counter.heldUntil = committing;
          agenda.at(committing, () => {
            counter.value = expected + workload.eventsPerTransaction;
          });
        }
        agenda.at(now + took, () => respond(now + took, expected, usedHint, outcome));
      });
    };

    const respond = (now: number, expected: number, usedHint: boolean, outcome: Outcome) => {
      // Only what is answered within the window counts.
      const counted = now <= durationMs;
      if (counted) transactionAttempts += 1;
      if (outcome.kind === 'committed') {
        hint = Math.max(hint ?? 0, expected + workload.eventsPerTransaction);
        if (counted) {
          commits += 1;
          latencies.push(now - commandStarted);
        }
        return startCommand(now);
      }
      if (counted) cancelled += 1;
      if (outcome.kind === 'stale' && usedHint) {
        // A stale hint is not contention: retry at once with the value the cancellation returned.
        hint = Math.max(hint ?? 0, outcome.counter);
        reported = outcome.counter;
        return nextAttempt(now);
      }
      if (attempt >= MAX_ATTEMPTS) {
        if (counted) gaveUp += 1;
        return startCommand(now);
      }
      const backoff = random() * Math.min(100, 5 * 2 ** attempt);
      agenda.at(now + backoff, () => nextAttempt(now + backoff));
    };

    // Writers start a little apart, as requests of independent clients would.
    const start = random() * workload.transaction.floorMs;
    agenda.at(start, () => startCommand(start));
  };

  for (let writer = 0; writer < writers; writer += 1) startWriter();
  for (let entry = agenda.next(); entry; entry = agenda.next()) entry.run();

  const seconds = durationMs / 1000;
  return {
    writers,
    commits,
    transactionAttempts,
    conflictRate: transactionAttempts === 0 ? 0 : cancelled / transactionAttempts,
    gaveUp,
    transactionsPerSecond: commits / seconds,
    rowsPerSecond: (commits * workload.rowsPerTransaction) / seconds,
    eventsPerSecond: (commits * workload.eventsPerTransaction) / seconds,
    latencyP50Ms: quantile(latencies, 0.5),
    latencyP99Ms: quantile(latencies, 0.99),
    serialBoundTransactionsPerSecond: 1000 / minimumCommitGapMs(workload),
  };
}

/**
 * The split of a round trip around the counter (15 % to reach it, 15 % back after the commit) is
 * an assumption: the 2PC's prepare and commit take the rest. Latencies: bench/models/simulation.ts.
 */
/** An API write (e.g. `POST /v1/boms`): its record(s), the counter, one event, audit, idempotency. */
export const AWS_API_WRITE: WorkloadProfile = {
  name: 'API write (5 actions, 1 event)',
  transaction: transactionLatency(5),
  counterRead: SINGLE_ITEM_REQUEST,
  buildMs: 2,
  arrivalShare: 0.15,
  returnShare: 0.15,
  rowsPerTransaction: 1,
  eventsPerTransaction: 1,
};

/**
 * An items-import chunk: 100 actions, 32 rows of three (record, natural-key claim, event) plus
 * the counter and the checkpoint, with the 100-action latency of `transactionLatency`. The build
 * (4 ms) is what a stock chunk spent outside its requests on DynamoDB Local
 * (docs/performance.md, "Stock adjustments").
 */
export const AWS_IMPORT_CHUNK: WorkloadProfile = {
  name: 'items import chunk (100 actions, 32 rows)',
  transaction: { floorMs: 38.9, medianMs: 57.6, p99Ms: 116.3 },
  counterRead: SINGLE_ITEM_REQUEST,
  buildMs: 4,
  arrivalShare: 0.15,
  returnShare: 0.15,
  rowsPerTransaction: 32,
  eventsPerTransaction: 32,
};
