import { Agenda, latencySampler, meanLatency, quantile, seededRandom, SINGLE_ITEM_REQUEST, transactionLatency, type LatencyProfile } from './simulation.ts';

/**
 * A deterministic discrete-event model of one organization's writers when events are numbered
 * after they commit (docs/performance.md "Numbering events after the commit: the design, modelled
 * (not built yet)"). Each writer is a container running the protocol's steps, against a model
 * of the DynamoDB items they touch, with published latencies (bench/models/simulation.ts):
 *
 * 1. **Commit**: the command's transaction puts its events, unnumbered, as a pending item in one
 *    of `pendingShards` partitions of the organization. Writers on distinct records share no item,
 *    so a commit is never cancelled (the model's writers each have their own records).
 * 2. **Number it at once when quiet**: a container whose last command's events were numbered
 *    alone sends one numbering transaction of its own pending item straight away (see
 *    `directWhenQuiet`); cancelled, it goes on as below.
 * 3. **Wait for its number**: one `BatchGetItem` of its own pending item (strongly consistent) and
 *    the organization's sequencer item (eventually consistent). Gone: its events are numbered and
 *    it answers. Still there and the sequencer's lease free (or expired): it asks for the lease
 *    (a conditional `UpdateItem` of the sequencer item). Otherwise it looks again after `pollMs`.
 * 4. **Sequence** (the lease holder): a strongly consistent Query of every pending shard (in
 *    parallel), then ONE transaction: the sequencer item (its `last` advanced once, conditioned on
 *    the lease), the numbered events' batch items, a conditional delete of each pending item
 *    numbered, in commit order, at most `maxActions` actions; the lease is given back in the same
 *    transaction once its own events are numbered.
 *
 * A transaction holds the items it writes from its arrival to its commit: a lease ask that reaches
 * the sequencer item then fails (`TransactionConflict`, a failed request, not a cancelled
 * transaction). A sequencing transaction is cancelled only when its lease ran out first, or (the
 * quiet path) when another writer's numbering got there first.
 */

export interface SequencerProtocol {
  /** Partitions an organization's pending items are spread over (a commit picks one at random). */
  pendingShards: number;
  /** How long a lease holds: a holder that died stops blocking the others after this. */
  leaseMs: number;
  /** A waiter's pause between looks. */
  pollMs: number;
  /** DynamoDB's limit on a transaction's actions. */
  maxActions: number;
  /** Consecutive sequence numbers stored under one partition key, the blocks dealt over `eventPartitions` keys in turn. */
  eventBlock: number;
  eventPartitions: number;
  /**
   * A container that found its organization quiet (its last command's events were numbered at
   * once, alone) numbers its own pending item straight after its commit: one transaction of the
   * sequencer item (conditioned on its last value as seen, and on no lease), its events and the
   * pending item's delete, with no look, lease or Query; cancelled when another got there first,
   * and then it waits like any other.
   */
  directWhenQuiet: boolean;
}

export interface SequencerWorkload {
  name: string;
  /** The command's own transaction (its records, audit, idempotency, the pending item). */
  commit: LatencyProfile;
  buildMs: number;
  /** Share of a transaction's round trip before it reaches its items, and after its commit. */
  arrivalShare: number;
  returnShare: number;
  rowsPerCommit: number;
  eventsPerCommit: number;
  /** One event as stored (envelope text): what the pending and the batch items weigh. */
  eventBytes: number;
}

export interface SequencerOptions {
  workload: SequencerWorkload;
  protocol: SequencerProtocol;
  writers: number;
  durationMs: number;
  seed: number;
}

export interface SequencerResult {
  writers: number;
  /** Commands answered (their events numbered) within the window. */
  commits: number;
  transactionsPerSecond: number;
  rowsPerSecond: number;
  eventsPerSecond: number;
  /** First build to the answer: the commit and the wait for its number. */
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** Commands whose events were not numbered within `GIVE_UP_MS` (none answer without). */
  gaveUp: number;
  /** Cancelled transactions (commits and sequencing) ÷ commits. */
  cancelledPerCommit: number;
  /** DynamoDB requests per commit, by step. */
  requestsPerCommit: { commit: number; looks: number; leaseAsks: number; queries: number; sequencing: number };
  /** Sequencing transactions and the commits each numbered on average. */
  sequencingTransactions: number;
  commitsPerSequencing: number;
  /** The busiest second of the busiest partition key, write units: the sequencer item, a pending shard, an events key. */
  busiestWcu: { sequencer: number; pendingShard: number; eventsKey: number };
  /** Read units per second on the sequencer item (the waiters' eventually consistent looks), the busiest second. */
  sequencerRcu: number;
}

/** A command still unanswered after this gives up (a Lambda's budget); the sweep numbers its events later. */
export const GIVE_UP_MS = 5000;

/** Transactional writes cost 2 WCU per KB of each item; plain writes 1; an eventually consistent read of up to 4 KB 0.5 RCU. */
const kilobytes = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));

interface Pending {
  writer: number;
  committedAt: number;
  shard: number;
  numbered: boolean;
}

export function simulateSequencedWriters({ workload, protocol, writers, durationMs, seed }: SequencerOptions): SequencerResult {
  const random = seededRandom(seed);
  const commitLatency = latencySampler(workload.commit, random);
  const singleRequest = latencySampler(SINGLE_ITEM_REQUEST, random);
  const agenda = new Agenda();
  /** Committed and not numbered yet, in commit order (commits are appended as they land). */
  const pending = new Set<Pending>();
  const sequencer = { last: 0, leaseHolder: -1, leaseUntil: -1, heldUntil: -1 };
  const latencies: number[] = [];
  const requests = { commit: 0, looks: 0, leaseAsks: 0, queries: 0, sequencing: 0 };
  let commits = 0;
  let cancelled = 0;
  let gaveUp = 0;
  let sequencingTransactions = 0;
  let numberedByPasses = 0;
  const wcu = new Map<string, number>();
  const rcu = new Map<number, number>();
  const pendingBytes = workload.eventsPerCommit * workload.eventBytes + 200;
  const charge = (key: string, at: number, units: number) => {
    const slot = `${key}@${Math.floor(at / 1000)}`;
    wcu.set(slot, (wcu.get(slot) ?? 0) + units);
  };
  const counted = (at: number) => at <= durationMs;

  const startWriter = (writer: number) => {
    let commandStarted = 0;
    let own: Pending | undefined;
    /** The container's view of its organization: quiet (its last number came at once) and the sequencer's `last` as it last saw it. */
    let quiet = true;
    let knownLast = 0;

    const startCommand = (now: number) => {
      if (now >= durationMs) return;
      commandStarted = now;
      agenda.at(now + workload.buildMs, () => commit(now + workload.buildMs));
    };

    const answer = (now: number, numbered: boolean) => {
      if (counted(now)) {
        if (numbered) {
          commits += 1;
          latencies.push(now - commandStarted);
        } else gaveUp += 1;
      }
      own = undefined;
      startCommand(now);
    };

    const commit = (now: number) => {
      const took = commitLatency();
      const shard = Math.floor(random() * protocol.pendingShards);
      if (counted(now)) requests.commit += 1;
      agenda.at(now + took * (1 - workload.returnShare), () => {
        own = { writer, committedAt: now + took * (1 - workload.returnShare), shard, numbered: false };
        pending.add(own);
        charge(`pending#${shard}`, own.committedAt, 2 * kilobytes(pendingBytes));
      });
      agenda.at(now + took, () => (quiet && protocol.directWhenQuiet ? numberOwn(now + took) : look(now + took)));
    };

    const numberOwn = (now: number) => {
      const took = latencySampler(transactionLatency(3), random)();
      if (counted(now)) requests.sequencing += 1;
      const arrives = now + took * workload.arrivalShare;
      const commitsAt = now + took * (1 - workload.returnShare);
      agenda.at(arrives, () => {
        const free = sequencer.heldUntil <= arrives && sequencer.leaseUntil <= arrives && sequencer.last === knownLast;
        knownLast = sequencer.last;
        if (free && own) {
          const item = own;
          sequencer.heldUntil = commitsAt;
          agenda.at(commitsAt, () => {
            numberBatch([item], commitsAt);
            knownLast = sequencer.last;
          });
        } else {
          quiet = false;
          if (counted(arrives)) cancelled += 1;
        }
        agenda.at(now + took, () => (free ? answer(now + took, true) : look(now + took)));
      });
    };

    const look = (now: number) => {
      if (now - commandStarted > GIVE_UP_MS) return answer(now, false);
      const took = singleRequest();
      if (counted(now)) requests.looks += 1;
      agenda.at(now + took / 2, () => {
        const second = Math.floor((now + took / 2) / 1000);
        rcu.set(second, (rcu.get(second) ?? 0) + 0.5);
        const numbered = own?.numbered ?? true;
        const leaseFree = sequencer.leaseUntil <= now + took / 2;
        knownLast = sequencer.last;
        if (!leaseFree) quiet = false;
        agenda.at(now + took, () => {
          if (numbered) return answer(now + took, true);
          if (leaseFree) return askLease(now + took);
          agenda.at(now + took + protocol.pollMs, () => look(now + took + protocol.pollMs));
        });
      });
    };

    const askLease = (now: number) => {
      const took = singleRequest();
      if (counted(now)) requests.leaseAsks += 1;
      const arrives = now + took / 2;
      agenda.at(arrives, () => {
        charge('sequencer', arrives, 1);
        const won = sequencer.heldUntil <= arrives && sequencer.leaseUntil <= arrives;
        if (won) {
          sequencer.leaseHolder = writer;
          sequencer.leaseUntil = arrives + protocol.leaseMs;
        }
        agenda.at(now + took, () => (won ? sequence(now + took) : agenda.at(now + took + protocol.pollMs, () => look(now + took + protocol.pollMs))));
      });
    };

    const sequence = (now: number) => {
      // Every shard at once: the pass waits for the slowest Query.
      const queryTook = Math.max(...Array.from({ length: protocol.pendingShards }, () => singleRequest()));
      if (counted(now)) requests.queries += protocol.pendingShards;
      agenda.at(now + queryTook / 2, () => {
        const seenAt = now + queryTook / 2;
        const found = [...pending].filter((item) => item.committedAt <= seenAt);
        const sent = now + queryTook;
        const { taken, batchItems } = fitTransaction(found.length, sequencer.last);
        const batch = found.slice(0, taken);
        quiet = batch.length === 1;
        const actions = 1 + batch.length + batchItems(batch.length);
        const took = latencySampler(transactionLatency(actions), random)();
        if (counted(sent)) requests.sequencing += 1;
        const arrives = sent + took * workload.arrivalShare;
        const commitsAt = sent + took * (1 - workload.returnShare);
        agenda.at(arrives, () => {
          const stillHeld = sequencer.leaseHolder === writer && sequencer.leaseUntil > arrives;
          if (stillHeld) {
            sequencer.heldUntil = commitsAt;
            agenda.at(commitsAt, () => {
              numberBatch(batch, commitsAt);
              if (own?.numbered) sequencer.leaseUntil = -1;
              knownLast = sequencer.last;
            });
          } else if (counted(arrives)) cancelled += 1;
          agenda.at(sent + took, () => {
            if (!stillHeld) return look(sent + took);
            if (own?.numbered) return answer(sent + took, true);
            sequence(sent + took);
          });
        });
      });
    };

    const start = random() * workload.commit.floorMs;
    agenda.at(start, () => startCommand(start));
  };

  /** One sequencing transaction's commit: the counter advanced once, the batch's events stored, its pending items gone. */
  function numberBatch(batch: readonly Pending[], at: number): void {
    const commitsNumbered = batch.length;
    const first = sequencer.last + 1;
    sequencer.last += commitsNumbered * workload.eventsPerCommit;
    for (const item of batch) {
      item.numbered = true;
      pending.delete(item);
      charge(`pending#${item.shard}`, at, 2 * kilobytes(pendingBytes));
    }
    chargeEvents(first, commitsNumbered * workload.eventsPerCommit, at);
    charge('sequencer', at, 2);
    if (counted(at)) {
      sequencingTransactions += 1;
      numberedByPasses += batch.length;
    }
  }

  /** How many of `available` commits one transaction numbers from `last`, and the batch items their events take (one per block they touch). */
  function fitTransaction(available: number, last: number): { taken: number; batchItems: (commits: number) => number } {
    const batchItems = (count: number) => {
      if (count === 0) return 0;
      const first = last + 1;
      const end = last + count * workload.eventsPerCommit;
      return Math.floor((end - 1) / protocol.eventBlock) - Math.floor((first - 1) / protocol.eventBlock) + 1;
    };
    let taken = available;
    while (taken > 0 && 1 + taken + batchItems(taken) > protocol.maxActions) taken -= 1;
    return { taken, batchItems };
  }

  function chargeEvents(first: number, count: number, at: number): void {
    for (let sequence = first; sequence < first + count;) {
      const block = Math.floor((sequence - 1) / protocol.eventBlock);
      const inBlock = Math.min(first + count - sequence, (block + 1) * protocol.eventBlock - sequence + 1);
      charge(`events#${block % protocol.eventPartitions}`, at, 2 * kilobytes(inBlock * workload.eventBytes));
      sequence += inBlock;
    }
  }

  for (let writer = 0; writer < writers; writer += 1) startWriter(writer);
  for (let entry = agenda.next(); entry; entry = agenda.next()) entry.run();

  const seconds = durationMs / 1000;
  const busiest = (prefix: string) => Math.max(0, ...[...wcu].filter(([slot]) => slot.startsWith(prefix)).map(([, units]) => units));
  const perCommit = (value: number) => (commits === 0 ? 0 : value / commits);
  return {
    writers,
    commits,
    transactionsPerSecond: commits / seconds,
    rowsPerSecond: (commits * workload.rowsPerCommit) / seconds,
    eventsPerSecond: (commits * workload.eventsPerCommit) / seconds,
    latencyP50Ms: quantile(latencies, 0.5),
    latencyP99Ms: quantile(latencies, 0.99),
    gaveUp,
    cancelledPerCommit: perCommit(cancelled),
    requestsPerCommit: {
      commit: perCommit(requests.commit),
      looks: perCommit(requests.looks),
      leaseAsks: perCommit(requests.leaseAsks),
      queries: perCommit(requests.queries),
      sequencing: perCommit(requests.sequencing),
    },
    sequencingTransactions,
    commitsPerSequencing: sequencingTransactions === 0 ? 0 : numberedByPasses / sequencingTransactions,
    busiestWcu: { sequencer: busiest('sequencer@'), pendingShard: busiest('pending#'), eventsKey: busiest('events#') },
    sequencerRcu: Math.max(0, ...rcu.values()),
  };
}

/**
 * What `writers` closed-loop writers cannot exceed, however the numbering is organised, as long as
 * each command waits for its events' numbers (read-after-response): a build, its own commit and
 * one numbering transaction of its pending item, each at its mean latency, with no wait between.
 */
export function closedLoopBound(workload: SequencerWorkload, writers: number): number {
  const cycleMs = workload.buildMs + meanLatency(workload.commit) + meanLatency(transactionLatency(3));
  return (writers * 1000) / cycleMs;
}

/** The protocol's settings as designed (docs/performance.md "Scaling one tenant"). */
export const SEQUENCER_PROTOCOL: SequencerProtocol = {
  pendingShards: 16,
  leaseMs: 1000,
  pollMs: 5,
  maxActions: 100,
  eventBlock: 100,
  eventPartitions: 16,
  directWhenQuiet: true,
};

/** An API write (e.g. `POST /v1/stock/adjustments`, one line): its record(s), audit, idempotency and the pending item; one event. */
export const SEQUENCED_API_WRITE: SequencerWorkload = {
  name: 'API write (5 actions, 1 event)',
  commit: transactionLatency(5),
  buildMs: 2,
  arrivalShare: 0.15,
  returnShare: 0.15,
  rowsPerCommit: 1,
  eventsPerCommit: 1,
  eventBytes: 600,
};

/** An items-import chunk: 32 rows of three actions (record, natural-key claim, event) and the checkpoint; 32 events in one pending item. */
export const SEQUENCED_IMPORT_CHUNK: SequencerWorkload = {
  name: 'items import chunk (98 actions, 32 rows)',
  commit: transactionLatency(98),
  buildMs: 4,
  arrivalShare: 0.15,
  returnShare: 0.15,
  rowsPerCommit: 32,
  eventsPerCommit: 32,
  eventBytes: 600,
};
