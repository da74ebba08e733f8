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

/** A latency distribution: a floor plus a log-normal excess fitted to a median and a p99. */
export interface LatencyProfile {
  floorMs: number;
  medianMs: number;
  p99Ms: number;
}

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
const Z_99 = 2.3263;

/** mulberry32: a small seeded generator, so every figure is reproducible from its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function latencySampler(profile: LatencyProfile, random: () => number): () => number {
  const medianExcess = profile.medianMs - profile.floorMs;
  const sigma = Math.log((profile.p99Ms - profile.floorMs) / medianExcess) / Z_99;
  return () => {
    // Box-Muller; 1 − u keeps the logarithm's argument above zero.
    const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    return profile.floorMs + medianExcess * Math.exp(sigma * normal);
  };
}

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

interface Scheduled {
  at: number;
  order: number;
  run: () => void;
}

/** A binary min-heap of scheduled actions by time, ties by scheduling order (determinism). */
class Agenda {
  private readonly heap: Scheduled[] = [];
  private scheduled = 0;

  at(time: number, run: () => void): void {
    const entry = { at: time, order: (this.scheduled += 1), run };
    const heap = this.heap;
    heap.push(entry);
    for (let index = heap.length - 1; index > 0;) {
      const parent = (index - 1) >> 1;
      if (!earlier(heap[index]!, heap[parent]!)) break;
      [heap[index], heap[parent]] = [heap[parent]!, heap[index]!];
      index = parent;
    }
  }

  next(): Scheduled | undefined {
    const heap = this.heap;
    const first = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last) {
      heap[0] = last;
      for (let index = 0; ;) {
        const left = 2 * index + 1;
        const right = left + 1;
        let smallest = index;
        if (left < heap.length && earlier(heap[left]!, heap[smallest]!)) smallest = left;
        if (right < heap.length && earlier(heap[right]!, heap[smallest]!)) smallest = right;
        if (smallest === index) break;
        [heap[index], heap[smallest]] = [heap[smallest]!, heap[index]!];
        index = smallest;
      }
    }
    return first;
  }
}

const earlier = (a: Scheduled, b: Scheduled) => a.at < b.at || (a.at === b.at && a.order < b.order);

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN;
}

type Outcome = { kind: 'committed' } | { kind: 'stale'; counter: number } | { kind: 'conflict' };

export function simulateTenantWriters({ workload, writers, durationMs, seed }: SimulationOptions): SimulationResult {
  const random = seededRandom(seed);
  const transactionLatency = latencySampler(workload.transaction, random);
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
      const took = transactionLatency();
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
 * Published TransactWriteItems round trips from a Lambda function in the table's region
 * (https://github.com/alexdebrie/dynamodb-performance-testing, 400 calls each): 5 items min 19.4,
 * p50 25.3, p99 92.5 ms; 25 items 23.5, 32.1, 97.5 ms; a failing 5-item transaction costs the
 * same as a committing one. PutItem (min 5.47, p50 7.55, p99 16.2 ms) stands in for the
 * counter's GetItem. The split of a round trip around the counter (15 % to reach it, 15 % back
 * after the commit) is an assumption: the 2PC's prepare and commit take the rest.
 */
const SINGLE_ITEM_REQUEST: LatencyProfile = { floorMs: 5.47, medianMs: 7.55, p99Ms: 16.2 };

/** An API write (e.g. `POST /v1/boms`): its record(s), the counter, one event, audit, idempotency. */
export const AWS_API_WRITE: WorkloadProfile = {
  name: 'API write (5 actions, 1 event)',
  transaction: { floorMs: 19.4, medianMs: 25.3, p99Ms: 92.5 },
  counterRead: SINGLE_ITEM_REQUEST,
  buildMs: 2,
  arrivalShare: 0.15,
  returnShare: 0.15,
  rowsPerTransaction: 1,
  eventsPerTransaction: 1,
};

/**
 * An items-import chunk: 100 actions, 32 rows of three (record, natural-key claim, event) plus
 * the counter and the checkpoint. No latency of a 100-action transaction is published; this
 * extends the 5 → 25 item figures linearly (+0.205 ms floor, +0.34 ms p50, +0.25 ms p99 per item).
 * The build (4 ms) is what a stock chunk spent outside its requests on DynamoDB Local
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
