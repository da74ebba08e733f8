import { describe, expect, it } from 'vitest';
import { auditEventSchema } from '../../lib/audit/contracts/audit-events.ts';
import * as z from '../../lib/platform/contracts/zod.ts';
import { AuditLog } from '../../lib/audit/domain/list-audit.ts';
import type { AuditEvent } from '../../lib/platform/audit/types.ts';
import { AuditStore } from '../../lib/audit/store/audit-store.ts';
import { uniqueOrganization } from '../support/api.ts';
import { auditDraft, commit, cursorCodec, eventDraft, MarkerExistsError, tableName, transactionWriter, writeContext } from '../support/events.ts';

/**
 * The audit log written by the TransactionWriter (docs/api-guide.md "Audit"): exactly one audit event per
 * committed write, in the same transaction; none for an aborted one.
 */

const auditLog = () => new AuditLog(new AuditStore(tableName('audit')), cursorCodec());

async function allAuditEvents(organizationId: string): Promise<AuditEvent[]> {
  const events: AuditEvent[] = [];
  let cursor: string | undefined;
  do {
    const page = await auditLog().list(organizationId, { limit: 200, ...(cursor ? { cursor } : {}) });
    events.push(...page.data);
    cursor = page.page.nextCursor ?? undefined;
  } while (cursor);
  return events;
}

describe('TransactionWriter audit events', () => {
  it.each([
    ['without domain events', { events: 0, traceId: 'trace-plain', idempotencyKey: undefined }],
    ['with three domain events', { events: 3, traceId: 'trace-events', idempotencyKey: undefined }],
    ['under an Idempotency-Key', { events: 1, traceId: 'trace-idem', idempotencyKey: 'order-2026-0042' }],
  ])('writes exactly one audit event with every field for a committed write %s', async (_label, variant) => {
    // Prepare
    const organizationId = uniqueOrganization();
    const context = writeContext(organizationId, { traceId: variant.traceId, idempotencyKey: variant.idempotencyKey });
    const draft = auditDraft('bom.updated', 'BOM FRAME-01 updated');
    const before = new Date().toISOString();

    // Act
    const result = await commit(
      organizationId,
      Array.from({ length: variant.events }, () => eventDraft('item.updated')),
      { audit: draft, context },
    );

    // Assess
    const stored = await allAuditEvents(organizationId);
    expect(stored).toHaveLength(1);
    const [event] = stored;
    expect(event).toEqual(result.audit);
    expect(z.strictObject(auditEventSchema.shape).parse(event)).toEqual(event);
    expect(event).toEqual({
      id: expect.stringMatching(/^aud_[0-9A-HJKMNP-TV-Z]{26}$/),
      kind: 'bom.updated',
      occurredAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      actor: context.actor,
      target: draft.target,
      summary: 'BOM FRAME-01 updated',
      changes: draft.changes,
      traceId: variant.traceId,
      idempotencyKey: variant.idempotencyKey ?? null,
    });
    expect((event?.occurredAt ?? '') >= before).toBe(true);
    expect(result.events).toHaveLength(variant.events);
  });

  it('writes one audit event per committed write under concurrent writers (retries leave none behind) and none for aborted writes', async () => {
    // Prepare
    const organizationId = uniqueOrganization();
    const writer = transactionWriter();
    const taken = `taken-${organizationId}`;
    const first = await commit(organizationId, [eventDraft('item.created')], { marker: taken, audit: auditDraft('bom.created', 'first') });

    // Act: 3 writers × 5 commits that conflict on the sequence, and 3 writes that abort
    const committed = await Promise.all(
      Array.from({ length: 3 }, async (_, writerIndex) => {
        const results = [];
        for (let index = 0; index < 5; index += 1) {
          results.push(
            await commit(organizationId, [eventDraft('stock.changed'), eventDraft('movement.created')], {
              writer,
              audit: auditDraft('bom.updated', `w${writerIndex}-${index}`),
            }),
          );
        }
        return results;
      }),
    );
    const aborted = await Promise.allSettled(
      Array.from({ length: 3 }, (_, index) =>
        commit(organizationId, [eventDraft('low-stock')], { marker: taken, audit: auditDraft('bom.updated', `aborted-${index}`) }),
      ),
    );

    // Assess
    const expected = [first, ...committed.flat()].map((result) => result.audit);
    const stored = await allAuditEvents(organizationId);
    expect(stored).toHaveLength(16);
    expect(new Set(stored.map((event) => event.id)).size).toBe(16);
    expect([...stored].sort((x, y) => x.id.localeCompare(y.id))).toEqual([...expected].sort((x, y) => (x?.id ?? '').localeCompare(y?.id ?? '')));
    expect(committed.flat().some((result) => result.attempts > 1)).toBe(true);
    for (const outcome of aborted) {
      expect(outcome.status).toBe('rejected');
      if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(MarkerExistsError);
    }
    expect(stored.map((event) => event.summary).filter((summary) => summary.startsWith('aborted'))).toEqual([]);
  });
});
