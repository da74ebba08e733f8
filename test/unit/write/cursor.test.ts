import { describe, expect, it } from 'vitest';
import { CursorCodec, type CursorBinding } from '../../../lib/domain/pagination/cursor.ts';

describe('CursorCodec', () => {
  const codec = new CursorCodec('s'.repeat(40));
  const binding: CursorBinding = { organizationId: 'org_a', endpoint: 'GET /v1/events', filters: { type: 'item.created' } };

  it('round-trips a position under the same binding', () => {
    expect(codec.decode(codec.encode(42, binding), binding)).toBe(42);
  });

  it('treats an undefined filter like an absent one', () => {
    const cursor = codec.encode(1, { ...binding, filters: { type: undefined } });
    expect(codec.decode(cursor, { ...binding, filters: {} })).toBe(1);
  });

  it.each([
    ['another organization', { ...binding, organizationId: 'org_b' }],
    ['another endpoint', { ...binding, endpoint: 'GET /v1/audit/events' }],
    ['another filter value', { ...binding, filters: { type: 'stock.changed' } }],
    ['no filter', { ...binding, filters: {} }],
  ])('refuses a cursor used under %s', (_label, other) => {
    expect(() => codec.decode(codec.encode(42, binding), other)).toThrow(expect.objectContaining({ code: 'customer-api.pagination.invalid-cursor' }));
  });

  it.each([
    ['a flipped payload character', (c: string) => (c[0] === 'e' ? 'f' : 'e') + c.slice(1)],
    ['a flipped signature character', (c: string) => c.slice(0, -1) + (c.endsWith('A') ? 'B' : 'A')],
    ['no signature', (c: string) => c.split('.')[0] ?? ''],
    ['an extra part', (c: string) => `${c}.x`],
    ['garbage', () => 'not a cursor'],
  ])('refuses %s', (_label, tamper) => {
    expect(() => codec.decode(tamper(codec.encode(42, binding)), binding)).toThrow(expect.objectContaining({ status: 400 }));
  });

  it('refuses a cursor signed with another secret', () => {
    const other = new CursorCodec('t'.repeat(40));
    expect(() => codec.decode(other.encode(42, binding), binding)).toThrow(expect.objectContaining({ code: 'customer-api.pagination.invalid-cursor' }));
  });

  it('needs a secret of at least 32 characters', () => {
    expect(() => new CursorCodec('short')).toThrow();
  });
});
