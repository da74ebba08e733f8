import { describe, expect, it } from 'vitest';
import { STALE_ATTEMPT_MS } from '../../../lib/webhooks/domain/attempt-limits.ts';
import { newTask } from '../../../lib/webhooks/domain/dispatch.ts';
import type { DeliveryAttempt, DeliveryTask } from '../../../lib/webhooks/domain/ports.ts';
import { endsWithLogEntry, taskAsRecorded } from '../../../lib/webhooks/domain/recorded-end.ts';

const startedAt = '2026-12-02T10:00:00.000Z';
const attempt = { attemptId: 'wha_1', number: 1, startedAt };
const event = { organizationId: 'org_1', sequence: 7, eventId: 'evt_1', type: 'item.created', committedAt: startedAt };
const claimed = (origin: string): DeliveryTask => ({ ...newTask(event, 'whe_1', origin), attempts: 1, inFlight: attempt });
const entry = (fields: Partial<DeliveryAttempt>): DeliveryAttempt => ({
  id: 'wha_1',
  eventId: 'evt_1',
  eventType: 'item.created',
  attempt: 1,
  status: 'succeeded',
  responseStatus: 204,
  durationMs: 12,
  error: null,
  attemptedAt: startedAt,
  nextAttemptAt: null,
  ...fields,
});

describe('a live first attempt ended by its log entry alone', () => {
  it('is the case for a live task at its first attempt that ends well before a successor may take it over', () => {
    const at = Date.parse(startedAt);
    expect(endsWithLogEntry({ origin: 'live' }, attempt, at + 200)).toBe(true);
    expect(endsWithLogEntry({ origin: 'live' }, attempt, at + STALE_ATTEMPT_MS - 30_001)).toBe(true);
  });

  it('is not the case near the stale time, for a retry, or for a replay task (those are in the due index)', () => {
    const at = Date.parse(startedAt);
    expect(endsWithLogEntry({ origin: 'live' }, attempt, at + STALE_ATTEMPT_MS - 30_000)).toBe(false);
    expect(endsWithLogEntry({ origin: 'live' }, { ...attempt, number: 2 }, at + 200)).toBe(false);
    expect(endsWithLogEntry({ origin: 'rpl_1' }, attempt, at + 200)).toBe(false);
  });

  it('reads a claimed task whose entry succeeded, or failed with nothing after, as ended', () => {
    expect(taskAsRecorded(claimed('live'), entry({}))).toMatchObject({ status: 'succeeded', inFlight: null, nextAttemptAt: null, attempts: 1 });
    expect(taskAsRecorded(claimed('live'), entry({ status: 'failed', responseStatus: 410 }))).toMatchObject({ status: 'failed', inFlight: null });
  });

  it("leaves the task as stored for no entry, a pending one, a retry scheduled, or another attempt's entry", () => {
    const task = claimed('live');
    expect(taskAsRecorded(task, undefined)).toBe(task);
    expect(taskAsRecorded(task, entry({ status: 'pending', responseStatus: null }))).toBe(task);
    expect(taskAsRecorded(task, entry({ status: 'failed', nextAttemptAt: '2026-12-02T10:01:00.000Z' }))).toBe(task);
    expect(taskAsRecorded(task, entry({ id: 'wha_other' }))).toBe(task);
    const unclaimed = newTask(event, 'whe_1', 'live');
    expect(taskAsRecorded(unclaimed, entry({}))).toBe(unclaimed);
  });
});
