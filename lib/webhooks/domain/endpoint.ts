import type { SecretBox } from '../../platform/core/secret-box.ts';
import { ApiError, NotFoundError } from '../../platform/core/errors.ts';
import type { EventType } from '../../platform/events/types.ts';

/**
 * Webhook endpoints (docs/webhooks.md): what the management routes show, what storage keeps and
 * the limits. The secrets that sign deliveries are kept only sealed (`SecretBox`), never in a
 * view, a log line or an audit entry.
 */

export const MAX_WEBHOOK_ENDPOINTS = 16;
/** After a rotation the previous secret keeps signing beside the new one this long. */
export const SECRET_OVERLAP_HOURS = 24;
/** An endpoint with no success for this long while its attempts fail is disabled (`failing`). */
export const FAILING_DISABLE_AFTER_DAYS = 5;
/** Delivery-log entries and delivery tasks are kept this long. */
export const DELIVERY_LOG_RETENTION_DAYS = 30;
export const WEBHOOK_URL_MAX_LENGTH = 2048;
export const WEBHOOK_DESCRIPTION_MAX_LENGTH = 500;

export type EndpointStatus = 'enabled' | 'disabled';
export type DisabledReason = 'manual' | 'gone' | 'failing';

/** The endpoint as the API shows it. */
export interface WebhookEndpoint {
  id: string;
  url: string;
  description: string;
  /** Empty: every type. */
  eventTypes: EventType[];
  status: EndpointStatus;
  disabledReason: DisabledReason | null;
  createdAt: string;
  updatedAt: string;
}

/** A sealed secret; `expiresAt` is set on the previous secret during a rotation's overlap. */
export interface SealedSecret {
  sealed: string;
  expiresAt: string | null;
}

/** The endpoint as stored: the view plus what only the service reads. */
export interface StoredEndpoint {
  organizationId: string;
  endpoint: WebhookEndpoint;
  secrets: SealedSecret[];
  /** The organization's last event sequence when it was created: it gets the events after it. */
  createdAfterSequence: number;
  /** When the current run of failed attempts began (no success since); null after a success. */
  failingSince: string | null;
  /**
   * Bumped by every write of the endpoint or its secrets, each conditioned on the version it read
   * (docs/webhooks.md "Concurrent changes"); 0 for an item written before versions.
   */
  version: number;
}

export type { SecretBox };

/** What a signing secret is bound to: its organization and endpoint (docs/webhooks.md "Secrets"). */
export function sealedSecretContext(organizationId: string, endpointId: string): string {
  return JSON.stringify(['webhook-secret', organizationId, endpointId]);
}

export const webhookEndpointNotFound = () => new NotFoundError('webhooks', 'No webhook endpoint with this id.');

export function endpointLimitReached(): ApiError {
  return new ApiError(409, 'customer-api.webhooks.limit-reached', 'Endpoint limit reached', {
    detail: `An organization may register at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints; delete one first.`,
  });
}

/** Does the endpoint take events of this type? */
export function subscribes(endpoint: WebhookEndpoint, type: string): boolean {
  return endpoint.eventTypes.length === 0 || (endpoint.eventTypes as string[]).includes(type);
}

/** The secrets that sign now: the current one, and the previous one until its overlap ends. */
export function signingSecrets(secrets: readonly SealedSecret[], now: Date): SealedSecret[] {
  return secrets.filter((secret) => secret.expiresAt === null || Date.parse(secret.expiresAt) > now.getTime());
}
