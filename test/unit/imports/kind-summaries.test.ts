import { describe, expect, it } from 'vitest';
import KIND_SUMMARIES from '../../../lib/imports/domain/kind-summaries.generated.json' with { type: 'json' };
import { IMPORT_KIND_NAMES } from '../../../lib/imports/domain/kind-names.ts';
import { IMPORT_KINDS, kindSummary } from '../../../lib/imports/domain/kinds.ts';

describe('lib/imports/domain/kind-summaries.generated.json', () => {
  it('is what the registry of import kinds says (run `npm run import-kinds` after changing a kind)', () => {
    expect(KIND_SUMMARIES).toEqual(IMPORT_KINDS.map(kindSummary));
  });
});

describe('IMPORT_KIND_NAMES (what the submission checks a kind against)', () => {
  it('names the registry’s kinds, in its order (add a new kind’s name there too)', () => {
    expect(IMPORT_KIND_NAMES).toEqual(IMPORT_KINDS.map((kind) => kind.kind));
  });
});
