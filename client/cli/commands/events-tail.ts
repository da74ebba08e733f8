import { parseArgs } from 'node:util';
import { CursorExpiredError } from '../../errors/cursor-expired-error.ts';
import { MemoryCheckpointStore } from '../../feed/checkpoint-store.ts';
import { FileCheckpointStore } from '../../feed/file-checkpoint-store.ts';
import { feedPages } from '../../feed/feed-pages.ts';
import type { EventType } from '../../types.ts';
import { clientFor, GLOBAL_OPTIONS, positiveInteger, positiveNumber, type CliContext } from '../context.ts';

export const EVENTS_TAIL_USAGE = `events tail [--type TYPE] [--limit N] [--checkpoint FILE] [--after-event ID] [--idle-delay SECONDS] [--once]
    Prints the events feed as JSON lines, oldest first, then keeps polling for new ones (Ctrl-C stops).
    --checkpoint FILE  resume from and save the position in FILE (saved after each page is printed)
    --once             stop at the tail instead of polling`;

/** `events tail`: the feed as JSON lines on stdout (docs/client.md#cli). */
export async function eventsTail(args: string[], context: CliContext): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      ...GLOBAL_OPTIONS,
      type: { type: 'string' },
      limit: { type: 'string', default: '100' },
      checkpoint: { type: 'string' },
      'after-event': { type: 'string' },
      'idle-delay': { type: 'string', default: '5' },
      once: { type: 'boolean', default: false },
    },
  });
  const client = clientFor(values, context);
  const checkpoints = values.checkpoint === undefined ? new MemoryCheckpointStore() : new FileCheckpointStore(values.checkpoint);
  let count = 0;
  try {
    const pages = feedPages(client, {
      checkpoints,
      limit: positiveInteger('--limit', values.limit),
      type: values.type as EventType | undefined,
      startAfterEventId: values['after-event'],
      follow: !values.once,
      idleDelayMs: positiveNumber('--idle-delay', values['idle-delay']) * 1000,
      signal: context.signal,
    });
    for await (const page of pages) {
      context.stdout.write(page.events.map((event) => `${JSON.stringify(event)}\n`).join(''));
      count += page.events.length;
    }
  } catch (error) {
    if (!(error instanceof CursorExpiredError)) throw error;
    context.stderr.write(
      `${error.message}\nThe checkpoint is past the 30-day retention: events may have been missed. ` +
        `Resynchronise from the resource endpoints, delete ${values.checkpoint ?? 'the checkpoint'} and run again to read from the oldest retained event.\n`,
    );
    return 1;
  }
  context.stderr.write(`${count} event${count === 1 ? '' : 's'}\n`);
  return 0;
}
