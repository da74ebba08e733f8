import { describe, expect, it } from 'vitest';
import { AuditLog, type AuditLogStore } from '../../../lib/audit/domain/list-audit.ts';
import { CursorCodec } from '../../../lib/platform/pagination/cursor.ts';

/** The audit time window: `fromUtc` inclusive, `toUtc` exclusive, exactly, at any precision. */
describe('AuditLog time bounds', () => {
  const seen: Array<{ from?: string; to?: string }> = [];
  const store: AuditLogStore = {
    list: async (_org, options) => {
      seen.push({ from: options.from, to: options.to });
      return { events: [], more: false };
    },
  };
  const log = new AuditLog(store, new CursorCodec('x'.repeat(32)));

  it.each([
    ['2026-01-01T00:00:05.331Z', '2026-01-01T00:00:05.331Z'],
    ['2026-01-01T00:00:05.3310Z', '2026-01-01T00:00:05.331Z'],
    ['2026-01-01T00:00:05.3319Z', '2026-01-01T00:00:05.332Z'],
    ['2026-01-01T02:00:05+02:00', '2026-01-01T00:00:05.000Z'],
  ])('normalizes %s to the stored precision as %s (rounding up)', async (given, bound) => {
    // Act
    await log.list('org_a', { limit: 10, fromUtc: given, toUtc: given });
    // Assess
    expect(seen.at(-1)).toEqual({ from: bound, to: bound });
  });

  it.each([
    ['2026-01-01T00:00:05.1239Z', '2026-01-01T00:00:05.1231Z'],
    ['2026-01-01T00:00:06Z', '2026-01-01T00:00:05.999Z'],
  ])('refuses fromUtc %s after toUtc %s', async (fromUtc, toUtc) => {
    await expect(log.list('org_a', { limit: 10, fromUtc, toUtc })).rejects.toMatchObject({ code: 'customer-api.validation.failed' });
  });
});
