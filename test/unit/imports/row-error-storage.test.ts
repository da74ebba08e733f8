import { describe, expect, it } from 'vitest';
import { ROW_ERROR_VALUE_MAX, storableRowError } from '../../../lib/imports/store/import-jobs-store.ts';

/** Row errors echo cells from the file; what is stored must stay small whatever the file holds. */
describe('storableRowError', () => {
  const base = { rowNumber: 3, column: 'description', code: 'too-long', message: 'description is too long.' };

  it('clips a huge value and keeps its start', () => {
    const stored = storableRowError({ ...base, value: 'x'.repeat(450_000) });
    expect(stored.value?.length).toBe(ROW_ERROR_VALUE_MAX + 1);
    expect(stored.value?.endsWith('…')).toBe(true);
  });

  it('reports an empty cell as null', () => {
    expect(storableRowError({ ...base, value: '' }).value).toBeNull();
  });

  it('keeps ordinary values as given, formula-like ones included', () => {
    expect(storableRowError({ ...base, value: '=SUM(A1)' }).value).toBe('=SUM(A1)');
  });
});
