import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED_TYPES, generateClientTypes } from '../../../client/generate-types.ts';

/** client/generated/api-types.ts must be what openapi-typescript makes of docs/openapi.json today. */

describe('client/generated/api-types.ts', () => {
  it('matches the types generated in memory from docs/openapi.json (run `npm run client:types` when not)', async () => {
    // Act
    const generated = await generateClientTypes();
    // Assess
    expect(readFileSync(GENERATED_TYPES, 'utf8') === generated, 'client/generated/api-types.ts is stale: run `npm run client:types`').toBe(true);
  });

  it('types file parts of multipart forms as Blob', async () => {
    expect(await generateClientTypes()).toMatch(/file: Blob;/);
  });
});
