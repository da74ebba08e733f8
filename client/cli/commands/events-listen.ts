import { parseArgs } from 'node:util';
import { generateWebhookSecret, signatureHeaders } from '../../../lib/webhooks/domain/signing.ts';
import { CursorExpiredError } from '../../errors/cursor-expired-error.ts';
import { MemoryCheckpointStore } from '../../feed/checkpoint-store.ts';
import { feedPages } from '../../feed/feed-pages.ts';
import type { DomainEvent } from '../../types.ts';
import { clientFor, GLOBAL_OPTIONS, positiveNumber, UsageError, type CliContext } from '../context.ts';

export const EVENTS_LISTEN_USAGE = `events listen --forward-to URL [--after-event ID] [--secret whsec_…] [--idle-delay SECONDS]
    Forwards each new event to a local handler as a signed webhook would (Ctrl-C stops): no
    registration, no public URL. Prints the signing secret first, then one line per forward.
    --after-event ID   start after this event instead of at the tail
    --secret whsec_…   sign with this secret instead of a new one`;

/** What the service would send; the feed's pages hold at most 200 events. */
const SKIP_PAGE = 200;
const FORWARD_TIMEOUT_MS = 15_000;
const USER_AGENT = 'inventory-customer-api-cli/events-listen';
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/u;

/**
 * `events listen` (docs/client.md#cli, docs/webhooks.md "Forwarding events to a local handler"):
 * tails the feed and POSTs every event to `--forward-to` with the Standard Webhooks headers a
 * registered endpoint would get, so a handler can be built and tested on a laptop.
 */
export async function eventsListen(args: string[], context: CliContext): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      ...GLOBAL_OPTIONS,
      'forward-to': { type: 'string' },
      'after-event': { type: 'string' },
      secret: { type: 'string' },
      'idle-delay': { type: 'string', default: '1' },
    },
  });
  const target = forwardTarget(values['forward-to']);
  if (values.secret !== undefined && !SECRET.test(values.secret))
    throw new UsageError('--secret must be whsec_ and the base64 of 32 bytes, as the service generates.');
  const secret = values.secret ?? generateWebhookSecret();
  const client = clientFor(values, context);
  const idleDelayMs = positiveNumber('--idle-delay', values['idle-delay']) * 1000;
  const checkpoints = new MemoryCheckpointStore();
  context.stdout.write(`Webhook signing secret: ${secret}\n`);

  let forwarded = 0;
  try {
    if (values['after-event'] === undefined) {
      // "From now": page to the tail without forwarding; the API has no shortcut to it.
      for await (const _page of feedPages(client, { checkpoints, limit: SKIP_PAGE, follow: false, signal: context.signal })) {
        // Only the position matters: the checkpoint store keeps it for the forwarding loop below.
      }
    }
    context.stderr.write(`Forwarding events ${values['after-event'] ? `after ${values['after-event']}` : 'from now'} to ${target.href} (Ctrl-C stops)\n`);
    const pages = feedPages(client, { checkpoints, startAfterEventId: values['after-event'], follow: true, idleDelayMs, signal: context.signal });
    for await (const page of pages) {
      for (const event of page.events) {
        context.stdout.write(`${await forward(target, event, secret)}\n`);
        forwarded += 1;
      }
    }
  } catch (error) {
    if (!(error instanceof CursorExpiredError)) throw error;
    context.stderr.write(`${error.message}\nThe position is past the 30-day retention; start again without --after-event.\n`);
    return 1;
  }
  context.stderr.write(`${forwarded} event${forwarded === 1 ? '' : 's'} forwarded\n`);
  return 0;
}

function forwardTarget(value: string | undefined): URL {
  if (value === undefined) throw new UsageError('--forward-to is required: the URL of your local handler, e.g. http://localhost:4242/hook.');
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new UsageError(`--forward-to must be an http:// or https:// URL, not '${value}'.`);
  return url;
}

/**
 * One POST, no retry (run again with --after-event to resend); the line says what happened.
 * The body is the envelope as the feed served it: the service writes it with JSON.stringify and
 * the client parsed it, so JSON.stringify gives back the same bytes, as a webhook carries them.
 */
async function forward(target: URL, event: DomainEvent, secret: string): Promise<string> {
  const body = JSON.stringify(event);
  const headers = signatureHeaders({ eventId: event.id, timestampSeconds: Math.floor(Date.now() / 1000), body, secrets: [secret] });
  const startedAt = performance.now();
  const label = `${event.id} ${event.type} →`;
  try {
    const response = await fetch(target, {
      method: 'POST',
      body,
      redirect: 'manual',
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': USER_AGENT },
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await response.body?.cancel();
    return `${label} ${response.status} (${Math.round(performance.now() - startedAt)} ms)`;
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    return `${label} failed: ${cause instanceof Error ? cause.message : String(cause)}`;
  }
}
