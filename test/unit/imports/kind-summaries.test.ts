import { describe, expect, it } from 'vitest';
import KIND_SUMMARIES from '../../../lib/domain/imports/kind-summaries.generated.json' with { type: 'json' };
import { IMPORT_KINDS, kindSummary } from '../../../lib/domain/imports/kinds.ts';

describe('lib/domain/imports/kind-summaries.generated.json', () => {
  it('is what the registry of import kinds says (run `npm run import-kinds` after changing a kind)', () => {
    expect(KIND_SUMMARIES).toEqual(IMPORT_KINDS.map(kindSummary));
  });
});
