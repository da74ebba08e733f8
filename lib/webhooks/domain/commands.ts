import type { AuditChange } from '../../platform/audit/types.ts';
import { ApiError, ValidationError } from '../../platform/core/errors.ts';
import { sequenceOfEventId } from '../../platform/events/event-id.ts';
import type { EventType } from '../../platform/events/types.ts';
import { newId } from '../../platform/core/ids.ts';
import type { CommandPlan } from '../../platform/write/ports.ts';
import { vetWebhookUrl } from './address-vetting.ts';
import {
  SECRET_OVERLAP_HOURS,
  sealedSecretContext,
  signingSecrets,
  webhookEndpointNotFound,
  type SecretBox,
  type StoredEndpoint,
  type WebhookEndpoint,
} from './endpoint.ts';
import type { EndpointStorage, EventSource, Replay, ReplayStorage } from './ports.ts';
import { generateWebhookSecret } from './signing.ts';

/**
 * The management commands of webhook endpoints (docs/webhooks.md): plans the writer commits with
 * their audit entry and the Idempotency-Key completion in one transaction. A new secret is
 * returned once, in the result; storage only ever sees it sealed.
 */

export interface EndpointInput {
  url: string;
  eventTypes?: EventType[] | undefined;
  description?: string | undefined;
  enabled?: boolean | undefined;
}

export type ReplayInput = { afterEventId: string } | { fromUtc: string };

export interface WebhookPorts<Write> {
  endpoints: EndpointStorage<Write>;
  replays: ReplayStorage<Write>;
  events: Pick<EventSource, 'find' | 'lastSequence'>;
  secrets: SecretBox;
  /** Local development only (WEBHOOK_ALLOW_LOOPBACK=1): http://127.0.0.1:<port>/ and http://[::1]:<port>/ URLs. */
  allowLoopback: boolean;
  clock?: () => Date;
}

export class WebhookCommands<Write> {
  constructor(private readonly ports: WebhookPorts<Write>) {}

  async create(organizationId: string, input: EndpointInput): Promise<CommandPlan<{ endpoint: WebhookEndpoint; secret: string }, Write>> {
    const url = this.vetted(input.url);
    const now = this.now().toISOString();
    const secret = generateWebhookSecret();
    const enabled = input.enabled ?? true;
    const endpoint: WebhookEndpoint = {
      id: newId('whe'),
      url,
      description: input.description ?? '',
      eventTypes: uniqueTypes(input.eventTypes),
      status: enabled ? 'enabled' : 'disabled',
      disabledReason: enabled ? null : 'manual',
      createdAt: now,
      updatedAt: now,
    };
    const stored: StoredEndpoint = {
      organizationId,
      endpoint,
      secrets: [{ sealed: await this.ports.secrets.seal(secret, sealedSecretContext(organizationId, endpoint.id)), expiresAt: null }],
      // Events committed after this one go to the endpoint (docs/webhooks.md "Which events").
      createdAfterSequence: await this.ports.events.lastSequence(organizationId),
      failingSince: null,
      version: 1,
    };
    return {
      writes: this.ports.endpoints.createWrites(organizationId, stored),
      audit: {
        kind: 'webhook-endpoint.created',
        target: { kind: 'webhook-endpoint', id: endpoint.id },
        summary: `Webhook endpoint for ${hostOf(url)} registered`,
        changes: [],
      },
      events: [],
      result: { endpoint, secret },
    };
  }

  async replace(organizationId: string, endpointId: string, input: EndpointInput): Promise<CommandPlan<WebhookEndpoint, Write>> {
    const stored = await this.require(organizationId, endpointId);
    const url = this.vetted(input.url);
    const enabled = input.enabled ?? true;
    const before = stored.endpoint;
    const wasEnabled = before.status === 'enabled';
    const endpoint: WebhookEndpoint = {
      ...before,
      url,
      description: input.description ?? '',
      eventTypes: uniqueTypes(input.eventTypes),
      status: enabled ? 'enabled' : 'disabled',
      // Keeps why it was disabled while it stays disabled; turning it off by hand is `manual`.
      disabledReason: enabled ? null : wasEnabled ? 'manual' : before.disabledReason,
      updatedAt: this.now().toISOString(),
    };
    const changes: AuditChange[] = (['url', 'description', 'eventTypes', 'status', 'disabledReason'] as const)
      .filter((field) => JSON.stringify(before[field]) !== JSON.stringify(endpoint[field]))
      .map((field) =>
        field === 'url' ? { field, from: redactedUrl(before.url), to: redactedUrl(endpoint.url) } : { field, from: before[field], to: endpoint[field] },
      );
    // Re-enabling starts a new run: earlier failures no longer count towards disabling it.
    const endRunOfFailures = enabled && !wasEnabled;
    return {
      writes: this.ports.endpoints.replaceWrites(organizationId, { ...stored, endpoint }, { endRunOfFailures }),
      audit: {
        kind: 'webhook-endpoint.updated',
        target: { kind: 'webhook-endpoint', id: endpointId },
        summary: `Webhook endpoint for ${hostOf(url)} updated`,
        changes,
      },
      events: [],
      result: endpoint,
    };
  }

  async delete(organizationId: string, endpointId: string): Promise<CommandPlan<null, Write>> {
    const stored = await this.require(organizationId, endpointId);
    return {
      writes: this.ports.endpoints.deleteWrites(organizationId, endpointId),
      audit: {
        kind: 'webhook-endpoint.deleted',
        target: { kind: 'webhook-endpoint', id: endpointId },
        summary: `Webhook endpoint for ${hostOf(stored.endpoint.url)} deleted`,
        changes: [],
      },
      events: [],
      result: null,
    };
  }

  /** A new secret; the current one keeps signing beside it for SECRET_OVERLAP_HOURS. */
  async rotateSecret(organizationId: string, endpointId: string): Promise<CommandPlan<{ secret: string }, Write>> {
    const stored = await this.require(organizationId, endpointId);
    const now = this.now();
    const secret = generateWebhookSecret();
    const overlapEnds = new Date(now.getTime() + SECRET_OVERLAP_HOURS * 3600_000).toISOString();
    // Only the secret that was current keeps signing; one still in an earlier overlap stops now.
    const current = signingSecrets(stored.secrets, now).find((candidate) => candidate.expiresAt === null);
    const secrets = [
      { sealed: await this.ports.secrets.seal(secret, sealedSecretContext(organizationId, endpointId)), expiresAt: null },
      ...(current ? [{ sealed: current.sealed, expiresAt: overlapEnds }] : []),
    ];
    return {
      writes: this.ports.endpoints.replaceWrites(organizationId, { ...stored, secrets, endpoint: { ...stored.endpoint, updatedAt: now.toISOString() } }),
      audit: {
        kind: 'webhook-endpoint.secret-rotated',
        target: { kind: 'webhook-endpoint', id: endpointId },
        summary: `Signing secret of the webhook endpoint for ${hostOf(stored.endpoint.url)} rotated; the previous one signs until ${overlapEnds}`,
        changes: [],
      },
      events: [],
      result: { secret },
    };
  }

  /**
   * A replay of the retained events after a point: recorded here, paged by the delivery worker
   * (docs/webhooks.md "Replaying"), so the request does a bounded amount of work.
   */
  async replay(organizationId: string, endpointId: string, input: ReplayInput): Promise<CommandPlan<Replay, Write>> {
    await this.require(organizationId, endpointId);
    const untilSequence = await this.ports.events.lastSequence(organizationId);
    let nextSequence = 1;
    let fromUtc: string | null = null;
    if ('afterEventId' in input) {
      const sequence = sequenceOfEventId(input.afterEventId);
      const event = sequence === undefined ? undefined : await this.ports.events.find(organizationId, sequence);
      if (!event || event.eventId !== input.afterEventId) {
        throw new ApiError(400, 'customer-api.events.unknown-checkpoint', 'Unknown event', {
          detail: 'afterEventId names no retained event of this organization.',
          extensions: { errors: [{ location: 'body', pointer: '/afterEventId', code: 'unknown-checkpoint', message: 'No retained event with this id.' }] },
        });
      }
      nextSequence = event.sequence + 1;
    } else {
      fromUtc = new Date(input.fromUtc).toISOString();
    }
    const replay: Replay = {
      id: newId('whr'),
      organizationId,
      endpointId,
      nextSequence,
      untilSequence,
      fromUtc,
      status: 'running',
      createdAt: this.now().toISOString(),
    };
    return { writes: this.ports.replays.createWrites(replay), events: [], result: replay };
  }

  private async require(organizationId: string, endpointId: string): Promise<StoredEndpoint> {
    const stored = await this.ports.endpoints.get(organizationId, endpointId);
    if (!stored) throw webhookEndpointNotFound();
    return stored;
  }

  private vetted(url: string): string {
    const verdict = vetWebhookUrl(url, { allowLoopback: this.ports.allowLoopback });
    if (!verdict.ok) throw new ValidationError([{ location: 'body', pointer: '/url', code: verdict.code, message: verdict.message }]);
    return verdict.url.href;
  }

  private now(): Date {
    return this.ports.clock?.() ?? new Date();
  }
}

function uniqueTypes(types: EventType[] | undefined): EventType[] {
  return [...new Set(types ?? [])];
}

/**
 * The URL as an audit entry shows it: each query value replaced by REDACTED, the names kept, since
 * receivers often take a token there (docs/webhooks.md "Secrets").
 */
export function redactedUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.search === '') return parsed.href;
  const names = parsed.search
    .slice(1)
    .split('&')
    .filter((part) => part !== '')
    .map((part) => part.split('=')[0]);
  parsed.search = names.map((name) => `${name}=REDACTED`).join('&');
  return parsed.href;
}

function hostOf(url: string): string {
  return new URL(url).host;
}
