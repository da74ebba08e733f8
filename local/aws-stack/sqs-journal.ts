import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Makes fauxqs's queues as durable as SQS (docs/operations.md "Local runtime"): every change to
 * the set of messages a queue holds (a message sent or moved to a DLQ, received, deleted, purged)
 * is appended to `<stateDir>/sqs/messages.jsonl` before fauxqs answers the call, and the
 * messages are put back into their queue (by queue name: the URL's port changes between starts)
 * when the next start creates it. A message keeps its id, body, attributes, sent time and
 * receive count, so redrive to the DLQ still counts receives across restarts.
 *
 * What is NOT kept is visibility: a message in flight when the process died is visible again
 * at the next start (on AWS it would come back once its visibility timeout ran out; the process
 * that held it is gone either way). Writes are not fsynced: the journal survives a killed
 * process (`kill -9`), not a power cut. Messages past their queue's retention period are
 * dropped at the start, as SQS drops them.
 */

/** The fields of a fauxqs message (SqsMessage of fauxqs 1.9.x) the journal relies on. */
export interface JournaledMessage {
  messageId: string;
  sentTimestamp: number;
  approximateReceiveCount: number;
  approximateFirstReceiveTimestamp?: number;
}

/** The part of fauxqs's SqsQueue (1.9.x) the journal hooks into. */
export interface FauxqsQueue {
  readonly name: string;
  attributes: Record<string, string>;
  inflightMessages: Map<string, { message: JournaledMessage }>;
  enqueue(message: JournaledMessage): void;
  dequeue(...args: unknown[]): { MessageId: string; ReceiptHandle: string }[];
  deleteMessage(receiptHandle: string): boolean;
  purge(): void;
}

/** The part of fauxqs's SqsStore (1.9.x) the journal hooks into. */
export interface FauxqsStore {
  createQueue(...args: unknown[]): FauxqsQueue;
  deleteQueue(url: string): boolean;
  getQueue(url: string): FauxqsQueue | undefined;
}

type JournalEntry =
  | { op: 'put'; queue: string; message: JournaledMessage }
  | { op: 'receive'; queue: string; id: string; count: number; first?: number }
  | { op: 'delete'; queue: string; id: string }
  | { op: 'drop'; queue: string };

/** Compacts once this many lines were appended and they are 4× more than the live messages. */
const COMPACT_AFTER_LINES = 10_000;

export class SqsJournal {
  private readonly file: string;
  /** Live messages by queue name, then id: the objects fauxqs holds once their queue exists. */
  private readonly live = new Map<string, Map<string, JournaledMessage>>();
  private fd: number;
  private appendedLines = 0;
  private restoring = false;

  constructor(stateDir: string) {
    const dir = join(stateDir, 'sqs');
    mkdirSync(dir, { recursive: true });
    this.file = join(dir, 'messages.jsonl');
    if (existsSync(this.file)) this.replay(readFileSync(this.file, 'utf8'));
    this.fd = this.compact();
  }

  /** How many messages the journal holds for each queue (diagnostics and tests). */
  counts(): Record<string, number> {
    return Object.fromEntries([...this.live].map(([queue, messages]) => [queue, messages.size]));
  }

  close(): void {
    closeSync(this.fd);
  }

  /** Wraps `store.createQueue` and `deleteQueue` so that every queue is journaled and restored. */
  attach(store: FauxqsStore): void {
    const createQueue = store.createQueue.bind(store);
    const deleteQueue = store.deleteQueue.bind(store);
    store.createQueue = (...args: unknown[]) => {
      const queue = createQueue(...args);
      this.hook(queue);
      this.restore(queue);
      return queue;
    };
    store.deleteQueue = (url: string) => {
      const name = store.getQueue(url)?.name;
      const deleted = deleteQueue(url);
      if (deleted && name !== undefined) this.append([{ op: 'drop', queue: name }]);
      return deleted;
    };
  }

  private hook(queue: FauxqsQueue): void {
    const enqueue = queue.enqueue.bind(queue);
    const dequeue = queue.dequeue.bind(queue);
    const deleteMessage = queue.deleteMessage.bind(queue);
    const purge = queue.purge.bind(queue);
    queue.enqueue = (message) => {
      if (!this.restoring) this.append([{ op: 'put', queue: queue.name, message }]);
      enqueue(message);
    };
    queue.dequeue = (...args) => {
      const received = dequeue(...args);
      const entries: JournalEntry[] = [];
      for (const { ReceiptHandle } of received) {
        const message = queue.inflightMessages.get(ReceiptHandle)?.message;
        if (!message) continue;
        entries.push({
          op: 'receive',
          queue: queue.name,
          id: message.messageId,
          count: message.approximateReceiveCount,
          ...(message.approximateFirstReceiveTimestamp !== undefined ? { first: message.approximateFirstReceiveTimestamp } : {}),
        });
      }
      if (entries.length > 0) this.append(entries);
      return received;
    };
    queue.deleteMessage = (receiptHandle) => {
      const id = queue.inflightMessages.get(receiptHandle)?.message.messageId;
      const deleted = deleteMessage(receiptHandle);
      if (deleted && id !== undefined) this.append([{ op: 'delete', queue: queue.name, id }]);
      return deleted;
    };
    queue.purge = () => {
      purge();
      this.append([{ op: 'drop', queue: queue.name }]);
    };
  }

  /** Puts the journaled messages of `queue` back, oldest first, without journaling them again. */
  private restore(queue: FauxqsQueue): void {
    const messages = this.live.get(queue.name);
    if (!messages || messages.size === 0) return;
    const retentionMs = Number(queue.attributes.MessageRetentionPeriod ?? 345_600) * 1000;
    const now = Date.now();
    const kept = [...messages.values()].filter((message) => message.sentTimestamp + retentionMs > now);
    kept.sort((a, b) => a.sentTimestamp - b.sentTimestamp);
    this.live.set(queue.name, new Map());
    this.restoring = true;
    try {
      for (const message of kept) {
        queue.enqueue(message);
        this.apply({ op: 'put', queue: queue.name, message });
      }
    } finally {
      this.restoring = false;
    }
  }

  private apply(entry: JournalEntry): void {
    const messages = this.live.get(entry.queue) ?? new Map<string, JournaledMessage>();
    this.live.set(entry.queue, messages);
    switch (entry.op) {
      case 'put':
        // A message moved to a DLQ keeps its id: it leaves every other queue.
        for (const [name, others] of this.live) if (name !== entry.queue) others.delete(entry.message.messageId);
        messages.set(entry.message.messageId, entry.message);
        break;
      case 'receive': {
        const message = messages.get(entry.id);
        if (message) {
          message.approximateReceiveCount = entry.count;
          if (entry.first !== undefined) message.approximateFirstReceiveTimestamp = entry.first;
        }
        break;
      }
      case 'delete':
        messages.delete(entry.id);
        break;
      case 'drop':
        messages.clear();
        break;
    }
  }

  private append(entries: readonly JournalEntry[]): void {
    for (const entry of entries) this.apply(entry);
    writeSync(this.fd, entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
    this.appendedLines += entries.length;
    const liveCount = [...this.live.values()].reduce((sum, messages) => sum + messages.size, 0);
    if (this.appendedLines > COMPACT_AFTER_LINES && this.appendedLines > 4 * liveCount) {
      closeSync(this.fd);
      this.fd = this.compact();
    }
  }

  private replay(text: string): void {
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        this.apply(JSON.parse(line) as JournalEntry);
      } catch {
        // A line cut short by a kill while it was written: everything before it stands.
      }
    }
  }

  /** Rewrites the journal as one `put` per live message; returns the descriptor to append to. */
  private compact(): number {
    const lines: string[] = [];
    for (const [queue, messages] of this.live) {
      for (const message of messages.values()) lines.push(JSON.stringify({ op: 'put', queue, message } satisfies JournalEntry));
    }
    const temporary = `${this.file}.tmp`;
    writeFileSync(temporary, lines.map((line) => `${line}\n`).join(''));
    renameSync(temporary, this.file);
    this.appendedLines = 0;
    return openSync(this.file, 'a');
  }
}
