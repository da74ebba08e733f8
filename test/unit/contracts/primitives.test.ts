import { describe, expect, it } from 'vitest';
import { booleanString, dateTimeString, doubleString, int32String, limitParam } from '../../../lib/platform/contracts/primitives.ts';

describe('int32String (seed number rule)', () => {
  it.each([
    ['0', 0],
    ['7', 7],
    ['-12', -12],
    ['2147483647', 2147483647],
    ['-2147483648', -2147483648],
  ])('accepts %j', (raw, value) => expect(int32String.parse(raw)).toBe(value));

  it.each(['007', '1.0', '1e3', ' 5', '5 ', '+5', '-0x1', '', '-', '2147483648', '-2147483649', '1_000', '٣'])('rejects %j', (raw) => {
    expect(int32String.safeParse(raw).success).toBe(false);
  });
});

describe('limitParam', () => {
  it('defaults to 50', () => expect(limitParam.parse(undefined)).toBe(50));
  it.each([
    ['1', 1],
    ['200', 200],
  ])('accepts %j', (raw, value) => expect(limitParam.parse(raw)).toBe(value));
  it.each(['0', '201', '-1', '050', 'ten'])('rejects %j', (raw) => expect(limitParam.safeParse(raw).success).toBe(false));
});

describe('doubleString', () => {
  it.each([
    ['10', 10],
    ['10.5', 10.5],
    ['-0.25', -0.25],
    ['0', 0],
  ])('accepts %j', (raw, value) => expect(doubleString.parse(raw)).toBe(value));
  it.each(['1e3', '.5', '5.', '01.5', ' 1', 'NaN', 'Infinity', '1,5', ''])('rejects %j', (raw) => {
    expect(doubleString.safeParse(raw).success).toBe(false);
  });
});

describe('booleanString', () => {
  it.each([
    ['true', true],
    ['false', false],
  ])('accepts %j', (raw, value) => expect(booleanString.parse(raw)).toBe(value));
  it.each(['TRUE', '1', 'yes', ''])('rejects %j', (raw) => expect(booleanString.safeParse(raw).success).toBe(false));
});

describe('dateTimeString', () => {
  it.each(['2026-01-31T12:00:00Z', '2026-01-31T12:00:00.123Z', '2026-01-31T12:00:00+02:00'])('accepts %j', (raw) => {
    expect(dateTimeString.safeParse(raw).success).toBe(true);
  });
  it.each(['2026-01-31', '2026-01-31T12:00:00', 'yesterday', '2026-13-01T00:00:00Z'])('rejects %j', (raw) => {
    expect(dateTimeString.safeParse(raw).success).toBe(false);
  });
});
