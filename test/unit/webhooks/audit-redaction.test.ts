import { describe, expect, it } from 'vitest';
import { WebhookCommands } from '../../../lib/webhooks/domain/commands.ts';
import type { StoredEndpoint } from '../../../lib/webhooks/domain/endpoint.ts';

/** Audit entries never show a URL's query values: a token there is a credential (docs/webhooks.md "Secrets"). */

const stored: StoredEndpoint = {
  organizationId: 'org_1',
  endpoint: {
    id: 'whe_1',
    url: 'https://hooks.example.com/in?token=old-secret-token&tenant=acme',
    description: '',
    eventTypes: [],
    status: 'enabled',
    disabledReason: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  },
  secrets: [],
  createdAfterSequence: 0,
  failingSince: null,
  version: 1,
};

const unused = () => Promise.reject(new Error('not reached'));
const commands = new WebhookCommands({
  endpoints: {
    get: () => Promise.resolve(stored),
    all: unused,
    page: unused,
    createWrites: () => [],
    replaceWrites: () => [],
    deleteWrites: () => [],
    markFailing: unused,
    clearFailing: unused,
    disable: unused,
  },
  replays: { createWrites: () => [], get: unused, advance: unused, postpone: unused },
  events: { find: unused, lastSequence: () => Promise.resolve(0) },
  secrets: { seal: (secret) => Promise.resolve(secret), open: (sealed) => Promise.resolve(sealed) },
  allowLoopback: false,
});

describe('audit changes of an endpoint URL', () => {
  it('keep the query names and redact their values', async () => {
    const plan = await commands.replace('org_1', 'whe_1', { url: 'https://hooks.example.com/in?token=new-secret-token&tenant=acme&flag' });
    const change = plan.audit?.changes.find((candidate) => candidate.field === 'url');
    expect(change).toEqual({
      field: 'url',
      from: 'https://hooks.example.com/in?token=REDACTED&tenant=REDACTED',
      to: 'https://hooks.example.com/in?token=REDACTED&tenant=REDACTED&flag=REDACTED',
    });
    expect(JSON.stringify(plan.audit)).not.toMatch(/secret-token/u);
    // The endpoint itself keeps the URL as given.
    expect(plan.result.url).toBe('https://hooks.example.com/in?token=new-secret-token&tenant=acme&flag');
  });

  it('leave a URL without a query as it is', async () => {
    const plan = await commands.replace('org_1', 'whe_1', { url: 'https://hooks.example.com/other' });
    expect(plan.audit?.changes.find((candidate) => candidate.field === 'url')?.to).toBe('https://hooks.example.com/other');
  });
});
