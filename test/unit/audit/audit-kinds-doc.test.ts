import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AUDIT_KINDS } from '../../../lib/platform/audit/types.ts';

/** The API guide's Audit section lists exactly the kinds the log holds and the filter accepts. */
function auditSection(): string {
  const guide = readFileSync(new URL('../../../docs/api-guide.md', import.meta.url), 'utf8');
  const start = guide.indexOf('## Audit:');
  return guide.slice(start, guide.indexOf('\n## ', start + 1));
}

describe('docs/api-guide.md "Audit"', () => {
  it('names every audit kind, and no other', () => {
    // Prepare
    const section = auditSection();

    // Act
    const named = new Set([...section.matchAll(/`([a-z-]+\.[a-z-]+)`/g)].map((match) => match[1] ?? ''));

    // Assess
    expect([...named].filter((kind) => !kind.startsWith('customer-api')).sort()).toEqual([...AUDIT_KINDS].sort());
  });
});
