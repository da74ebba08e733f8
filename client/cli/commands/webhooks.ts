import { parseArgs } from 'node:util';
import { paginate } from '../../pagination/paginate.ts';
import { unwrap } from '../../unwrap.ts';
import { clientFor, GLOBAL_OPTIONS, UsageError, type CliContext } from '../context.ts';

/** `webhooks create|list|deliveries|replay` (docs/webhooks.md, docs/client.md#cli). */

export const WEBHOOKS_USAGE = `webhooks create --endpoint-url URL [--types T1,T2] [--description TEXT]
    Registers an endpoint; prints it with its secret (shown this once).
  webhooks list
    Prints the endpoints, one JSON object a line.
  webhooks deliveries --endpoint ID [--event EVENT_ID] [--status succeeded|failed|pending]
    Prints the endpoint's delivery attempts, newest first, one JSON object a line.
  webhooks replay --endpoint ID (--after EVENT_ID | --from ISO_DATE_TIME)
    Sends the retained events after that point to the endpoint again, in feed order.`;

type EventTypeName =
  'stock.changed' | 'item.created' | 'item.updated' | 'movement.created' | 'po.received' | 'count.completed' | 'low-stock' | 'export.completed';
type DeliveryStatus = 'succeeded' | 'failed' | 'pending';

export async function webhooksCreate(args: string[], context: CliContext): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: { ...GLOBAL_OPTIONS, 'endpoint-url': { type: 'string' }, types: { type: 'string' }, description: { type: 'string' } },
  });
  const endpointUrl = values['endpoint-url'];
  if (!endpointUrl) throw new UsageError('webhooks create needs --endpoint-url URL.');
  const client = clientFor(values, context);
  const eventTypes =
    values.types === undefined
      ? []
      : (values.types
          .split(',')
          .map((type) => type.trim())
          .filter(Boolean) as EventTypeName[]);
  const body = { url: endpointUrl, eventTypes, ...(values.description === undefined ? {} : { description: values.description }) };
  const created = await unwrap(client.api.POST('/v1/webhooks/endpoints', { body, signal: context.signal }));
  context.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
  context.stderr.write('Keep the secret now: it is never shown again (rotate it to get a new one).\n');
  return 0;
}

export async function webhooksList(args: string[], context: CliContext): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { ...GLOBAL_OPTIONS } });
  const client = clientFor(values, context);
  const endpoints = paginate(
    (cursor) =>
      unwrap(
        client.api.GET('/v1/webhooks/endpoints', { params: { query: { limit: 200, ...(cursor === undefined ? {} : { cursor }) } }, signal: context.signal }),
      ),
    'GET /v1/webhooks/endpoints',
  );
  for await (const endpoint of endpoints) context.stdout.write(`${JSON.stringify(endpoint)}\n`);
  return 0;
}

export async function webhooksDeliveries(args: string[], context: CliContext): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: { ...GLOBAL_OPTIONS, endpoint: { type: 'string' }, event: { type: 'string' }, status: { type: 'string' } },
  });
  if (!values.endpoint) throw new UsageError('webhooks deliveries needs --endpoint ID.');
  if (values.status !== undefined && !['succeeded', 'failed', 'pending'].includes(values.status))
    throw new UsageError('--status is succeeded, failed or pending.');
  const client = clientFor(values, context);
  const endpointId = values.endpoint;
  const filters = {
    limit: 200,
    ...(values.event === undefined ? {} : { eventId: values.event }),
    ...(values.status === undefined ? {} : { status: values.status as DeliveryStatus }),
  };
  const attempts = paginate(
    (cursor) =>
      unwrap(
        client.api.GET('/v1/webhooks/endpoints/{id}/deliveries', {
          params: { path: { id: endpointId }, query: { ...filters, ...(cursor === undefined ? {} : { cursor }) } },
          signal: context.signal,
        }),
      ),
    'GET /v1/webhooks/endpoints/{id}/deliveries',
  );
  for await (const attempt of attempts) context.stdout.write(`${JSON.stringify(attempt)}\n`);
  return 0;
}

export async function webhooksReplay(args: string[], context: CliContext): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: { ...GLOBAL_OPTIONS, endpoint: { type: 'string' }, after: { type: 'string' }, from: { type: 'string' } },
  });
  if (!values.endpoint) throw new UsageError('webhooks replay needs --endpoint ID.');
  if ((values.after === undefined) === (values.from === undefined))
    throw new UsageError('webhooks replay needs exactly one of --after EVENT_ID and --from DATE_TIME.');
  const client = clientFor(values, context);
  const body = values.after !== undefined ? { afterEventId: values.after } : { fromUtc: values.from as string };
  const replay = await unwrap(
    client.api.POST('/v1/webhooks/endpoints/{id}/replays', { params: { path: { id: values.endpoint } }, body, signal: context.signal }),
  );
  context.stdout.write(`${JSON.stringify(replay, null, 2)}\n`);
  return 0;
}
