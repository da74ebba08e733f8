import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../lib/platform/audit/types.ts';
import { ApiError } from '../../lib/platform/core/errors.ts';
import { WebhookCommands } from '../../lib/webhooks/domain/commands.ts';
import { sealedSecretContext } from '../../lib/webhooks/domain/endpoint.ts';
import type { CommandPlan } from '../../lib/platform/write/ports.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { WebhookEndpointsStore, WebhookReplaysStore } from '../../lib/webhooks/store/webhook-endpoints-store.ts';
import { WebhookEventSource } from '../../lib/webhooks/store/webhook-queue.ts';
import { webhookSecretBox } from '../../lib/webhooks/store/webhook-secrets.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName, transactionWriter, writeContext } from '../support/events.ts';

/**
 * Endpoint writes are conditioned on the version they read (docs/webhooks.md "Concurrent
 * changes"): of two writes planned from the same read, the second is refused (409) instead of
 * overwriting the first, and the worker's disable is never undone by a stale rotation or PUT.
 */

const endpoints = () => new WebhookEndpointsStore(tableName('inventory'), tableName('audit'));
const commands = () =>
  new WebhookCommands<StoreWrite>({
    endpoints: endpoints(),
    replays: new WebhookReplaysStore(tableName('inventory')),
    events: new WebhookEventSource(tableName('events')),
    secrets: webhookSecretBox(),
    allowLoopback: false,
  });

async function committed<T>(organizationId: string, plan: CommandPlan<T, StoreWrite>): Promise<T> {
  return (await transactionWriter().run(writeContext(organizationId), () => Promise.resolve(plan))).result;
}

async function registered(organizationId: string): Promise<string> {
  const { endpoint } = await committed(organizationId, await commands().create(organizationId, { url: 'https://hooks.example.com/versions' }));
  return endpoint.id;
}

async function openedSecrets(organizationId: string, endpointId: string): Promise<string[]> {
  const stored = await endpoints().get(organizationId, endpointId);
  const box = webhookSecretBox();
  return Promise.all((stored?.secrets ?? []).map((secret) => box.open(secret.sealed, sealedSecretContext(organizationId, endpointId))));
}

async function conflictOf(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  return error instanceof ApiError ? `${error.status} ${error.code}` : error === undefined ? undefined : String(error);
}

const disabledAudit = (endpointId: string): AuditEvent => ({
  id: `aud_${endpointId}`,
  kind: 'webhook-endpoint.disabled',
  target: { kind: 'webhook-endpoint', id: endpointId },
  summary: 'disabled by the test',
  changes: [],
  occurredAt: new Date().toISOString(),
  actor: { type: 'system', id: 'webhook-delivery' },
  traceId: null,
  idempotencyKey: null,
});

describe('webhook endpoint versions', () => {
  it('a rotation racing a PUT: the later of the two is refused, the committed secret stays', async () => {
    const organizationId = uniqueOrganization();
    const endpointId = await registered(organizationId);
    // Both planned from the same read, as two requests arriving together would be.
    const rotation = await commands().rotateSecret(organizationId, endpointId);
    const replacement = await commands().replace(organizationId, endpointId, { url: 'https://hooks.example.com/moved', description: 'moved' });
    const { secret } = await committed(organizationId, rotation);
    expect(await conflictOf(committed(organizationId, replacement))).toBe('409 customer-api.request.conflict');
    expect(await openedSecrets(organizationId, endpointId)).toContain(secret);
  });

  it('two rotations from one read: the second is refused, the first secret is not lost', async () => {
    const organizationId = uniqueOrganization();
    const endpointId = await registered(organizationId);
    const first = await commands().rotateSecret(organizationId, endpointId);
    const second = await commands().rotateSecret(organizationId, endpointId);
    const { secret } = await committed(organizationId, first);
    expect(await conflictOf(committed(organizationId, second))).toBe('409 customer-api.request.conflict');
    expect((await openedSecrets(organizationId, endpointId))[0]).toBe(secret);
  });

  it("the worker disables between a rotation's read and its write: the disable is kept", async () => {
    const organizationId = uniqueOrganization();
    const endpointId = await registered(organizationId);
    const rotation = await commands().rotateSecret(organizationId, endpointId);
    expect(await endpoints().disable(organizationId, endpointId, 'gone', disabledAudit(endpointId), new Date())).toBe(true);
    expect(await conflictOf(committed(organizationId, rotation))).toBe('409 customer-api.request.conflict');
    expect((await endpoints().get(organizationId, endpointId))?.endpoint).toMatchObject({ status: 'disabled', disabledReason: 'gone' });
  });

  it('the worker disables after a PUT it did not read: it re-reads and disables the current endpoint', async () => {
    const organizationId = uniqueOrganization();
    const endpointId = await registered(organizationId);
    await committed(
      organizationId,
      await commands().replace(organizationId, endpointId, { url: 'https://hooks.example.com/versions', description: 'changed' }),
    );
    expect(await endpoints().disable(organizationId, endpointId, 'failing', disabledAudit(endpointId), new Date())).toBe(true);
    expect((await endpoints().get(organizationId, endpointId))?.endpoint).toMatchObject({
      status: 'disabled',
      disabledReason: 'failing',
      description: 'changed',
    });
  });
});
