import { describe, expect, it } from 'vitest';
import { cleanFileName } from '../../../lib/imports/domain/submit-job.ts';

describe('cleanFileName', () => {
  it.each([
    { label: 'a right-to-left override', given: 'invoice\u202Evsc.exe', expected: 'invoicevsc.exe' },
    { label: 'isolates and marks', given: '\u2066a\u2069\u200E\u200F\u061Cb.csv', expected: 'ab.csv' },
    { label: 'C0 controls and DEL', given: 'a\u0000\u0007\u001b\u007fb.csv', expected: 'ab.csv' },
    { label: 'C1 controls', given: 'a\u0080\u0085\u009fb.csv', expected: 'ab.csv' },
    { label: 'nothing left', given: '\u202E\u0001', expected: 'upload.csv' },
    { label: 'letters of any script, emoji and spaces', given: 'Lager Süd – 📦 קובץ.csv', expected: 'Lager Süd – 📦 קובץ.csv' },
  ])('removes $label', ({ given, expected }) => {
    expect(cleanFileName(given)).toBe(expected);
  });

  it('keeps at most 255 characters without splitting a character', () => {
    const name = cleanFileName('📦'.repeat(300));
    expect([...name]).toHaveLength(255);
    expect(name.endsWith('📦')).toBe(true);
  });
});
