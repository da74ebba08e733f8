import { describe, expect, it } from 'vitest';
import { CursorCodec, type CursorBinding } from '../../../lib/platform/pagination/cursor.ts';

describe('CursorCodec', () => {
  const codec = new CursorCodec('s'.repeat(40));
  const binding: CursorBinding = { organizationId: 'org_a', endpoint: 'GET /v1/events', filters: { type: 'item.created' } };

  it('round-trips a position under the same binding', async () => {
    await expect(codec.decode(codec.encode(42, binding), binding)).resolves.toBe(42);
  });

  it('treats an undefined filter like an absent one', async () => {
    const cursor = codec.encode(1, { ...binding, filters: { type: undefined } });
    await expect(codec.decode(cursor, { ...binding, filters: {} })).resolves.toBe(1);
  });

  it.each([
    ['another organization', { ...binding, organizationId: 'org_b' }],
    ['another endpoint', { ...binding, endpoint: 'GET /v1/audit/events' }],
    ['another filter value', { ...binding, filters: { type: 'stock.changed' } }],
    ['no filter', { ...binding, filters: {} }],
  ])('refuses a cursor used under %s', async (_label, other) => {
    await expect(codec.decode(codec.encode(42, binding), other)).rejects.toMatchObject({ code: 'customer-api.pagination.invalid-cursor' });
  });

  it.each([
    ['a flipped payload character', (c: string) => (c[0] === 'e' ? 'f' : 'e') + c.slice(1)],
    ['a flipped signature character', (c: string) => c.slice(0, -1) + (c.endsWith('A') ? 'B' : 'A')],
    ['no signature', (c: string) => c.split('.')[0] ?? ''],
    ['an extra part', (c: string) => `${c}.x`],
    ['garbage', () => 'not a cursor'],
  ])('refuses %s', async (_label, tamper) => {
    await expect(codec.decode(tamper(codec.encode(42, binding)), binding)).rejects.toMatchObject({ status: 400 });
  });

  it('refuses a cursor signed with another secret', async () => {
    const other = new CursorCodec('t'.repeat(40));
    await expect(codec.decode(other.encode(42, binding), binding)).rejects.toMatchObject({ code: 'customer-api.pagination.invalid-cursor' });
  });

  it('needs a secret of at least 32 characters', () => {
    expect(() => new CursorCodec('short')).toThrow();
  });
});
