import { GetCommand, PutCommand, type PutCommandInput } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { admit, DEFAULT_FAIR_SHARE, EMPTY_GATE, release, type FairShareLimits, type GateState, type ShareRefusal } from '../domain/webhooks/fair-share.ts';
import type { AttemptGate } from '../domain/webhooks/ports.ts';
import { documentClient } from './dynamodb-client.ts';
import { entityItem } from './entity.ts';
import { webhookGateEntity } from './entities.ts';

/**
 * The fair-share gate in the inventory table (docs/webhooks.md "Fairness"): one item per
 * organization holding its leases and its endpoints' consecutive timeouts, each change written
 * over the version it read (optimistic), so workers on any container see the same count. A
 * refusal costs one read and no write, and is remembered for a moment by this container, so the
 * rest of a backlog waiting for the same share is deferred without reading again.
 */

/** Attempts to write over a concurrent change before giving up (an admission then defers; a release leaves the lease to expire). */
const WRITE_TRIES = 6;
/** How long a refusal stands for this container's next messages of the same organization or endpoint. */
const REFUSAL_MEMORY_MS = 500;

export class WebhookAttemptGate implements AttemptGate {
  constructor(
    private readonly tableName: string,
    private readonly options: { limits?: FairShareLimits; leaseMs: number; clock?: () => number; log?: (message: string, details: Record<string, unknown>) => void },
  ) {}

  /** Leases this container holds or is asking for: past a share here, no read is needed to refuse. */
  private readonly local = new Map<string, { organizationId: string; endpointId: string }>();
  /** Refusals remembered: key (organization, or organization and endpoint) → until when, and why. */
  private readonly refusals = new Map<string, { until: number; reason: ShareRefusal }>();

  async acquire(request: { organizationId: string; endpointId: string; leaseId: string }): Promise<{ admitted: true } | { admitted: false; reason: ShareRefusal }> {
    const limits = this.options.limits ?? DEFAULT_FAIR_SHARE;
    // Checked and reserved in one synchronous step, so a burst of one organization's messages asks the table at most its share of times.
    const refusedHere = this.refusedLocally(request, limits);
    if (refusedHere) return { admitted: false, reason: refusedHere };
    this.local.set(request.leaseId, request);
    let reason: ShareRefusal = 'organization-share';
    const outcome = await this.change(request.organizationId, (state) => {
      const admission = admit(state, { ...request, now: this.now(), leaseMs: this.options.leaseMs }, limits);
      if (admission.admitted) return admission.next;
      reason = admission.reason;
      return undefined;
    }).catch((error: unknown) => {
      this.local.delete(request.leaseId);
      throw error;
    });
    if (outcome === 'written') return { admitted: true };
    this.local.delete(request.leaseId);
    if (outcome === 'refused') {
      const key = reason === 'organization-share' ? request.organizationId : `${request.organizationId}#${request.endpointId}`;
      this.refusals.set(key, { until: this.now() + REFUSAL_MEMORY_MS, reason });
    }
    // Still contended after every try: as good as a full share.
    return { admitted: false, reason };
  }

  private refusedLocally(request: { organizationId: string; endpointId: string }, limits: FairShareLimits): ShareRefusal | undefined {
    const now = this.now();
    for (const key of [request.organizationId, `${request.organizationId}#${request.endpointId}`]) {
      const refusal = this.refusals.get(key);
      if (refusal && refusal.until > now) return refusal.reason;
      if (refusal) this.refusals.delete(key);
    }
    const held = [...this.local.values()].filter((lease) => lease.organizationId === request.organizationId);
    if (held.length >= limits.organizationShare) return 'organization-share';
    if (held.filter((lease) => lease.endpointId === request.endpointId).length >= limits.endpointShare) return 'endpoint-share';
    return undefined;
  }

  async release(request: { organizationId: string; endpointId: string; leaseId: string; timedOut: boolean | null }): Promise<void> {
    this.local.delete(request.leaseId);
    const outcome = await this.change(request.organizationId, (state) => release(state, request));
    if (outcome === 'contended') this.options.log?.('webhook attempt lease not released: it expires on its own', { organizationId: request.organizationId, leaseId: request.leaseId });
  }

  /** Reads the gate, applies `next` and writes it over the version read; `next` returning undefined writes nothing. */
  private async change(organizationId: string, next: (state: GateState) => GateState | undefined): Promise<'written' | 'refused' | 'contended'> {
    for (let tries = 0; tries < WRITE_TRIES; tries += 1) {
      const state = await this.read(organizationId);
      const changed = next(state);
      if (!changed) return 'refused';
      const put: PutCommandInput = {
        TableName: this.tableName,
        Item: entityItem(webhookGateEntity, { organizationId }, { gate: changed }),
        ConditionExpression: state.version === 0 ? 'attribute_not_exists(pk)' : '#gate.#version = :read',
        ...(state.version === 0 ? {} : { ExpressionAttributeNames: { '#gate': 'gate', '#version': 'version' }, ExpressionAttributeValues: { ':read': state.version } }),
      };
      try {
        await documentClient.send(new PutCommand(put));
        return 'written';
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        // Another worker changed the gate since the read: read again, after a pause that spreads the retries.
        await sleep(Math.round(Math.random() * 20 * (tries + 1)));
      }
    }
    return 'contended';
  }

  private async read(organizationId: string): Promise<GateState> {
    const { Item } = await documentClient.send(new GetCommand({ TableName: this.tableName, Key: webhookGateEntity.key({ organizationId }), ConsistentRead: true }));
    return (Item?.gate as GateState | undefined) ?? EMPTY_GATE;
  }

  private now(): number {
    return this.options.clock?.() ?? Date.now();
  }
}
