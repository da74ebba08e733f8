import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { EntityDefinition } from '../../../lib/platform/dynamo/entity.ts';

// Every stored kind is declared in an entity module: lib/<area>/store/entities.ts (or
// `<thing>-entity.ts`, `<thing>-entities.ts`) and, for the platform's own kinds,
// lib/platform/dynamo/entities.ts (docs/architecture.md "Storage: the entity layer"). This test
// finds them all by their file names, so a new area's module is checked without a list to update,
// and proves across all of them that no two declarations share a type tag and schema version, and
// that no two kinds can write the same key.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MACHINERY = 'lib/platform/dynamo/entity.ts';
const ENTITY_MODULE = /(^|\/)(lib\/[^/]+\/store|lib\/platform\/dynamo)\/([\w-]+-)?entit(y|ies)\.ts$/;

type AnyEntity = EntityDefinition<never, never> & { key(identity: unknown): { pk: string; sk?: string } };
interface Declaration {
  module: string;
  name: string;
  entity: AnyEntity;
}

/**
 * Kinds of different type tags whose keys have the same shape, each with why they never meet.
 * Anything else sharing a shape fails.
 */
const SHARED_KEY_SHAPES: ReadonlyArray<{ types: readonly [string, string]; why: string }> = [
  { types: ['inventory-record', 'movement-record'], why: 'both live under their id; a movement id (`mov_…`) is never an inventory record id' },
];

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [relative(ROOT, path).split('\\').join('/')] : [];
  });
}

const LIB_FILES = sourceFiles(join(ROOT, 'lib'));
const ENTITY_MODULES = LIB_FILES.filter((file) => file !== MACHINERY && ENTITY_MODULE.test(file));

function isEntity(value: unknown): value is AnyEntity {
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as Partial<AnyEntity>;
  return typeof candidate.type === 'string' && typeof candidate.schemaVersion === 'number' && typeof candidate.key === 'function';
}

async function declarations(): Promise<Declaration[]> {
  const found: Declaration[] = [];
  for (const module of ENTITY_MODULES) {
    const exported = (await import(pathToFileURL(join(ROOT, module)).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(exported)) if (isEntity(value)) found.push({ module, name, entity: value });
  }
  return found;
}

/**
 * A stand-in for any identity value: it prints as `‹path›` (in a template, `String()`, padStart)
 * and has every property, itself a stand-in. So `entity.key(identity)` gives the key's shape:
 * its fixed parts, with each identity field marked where it goes.
 */
function placeholder(path: string): unknown {
  const text = `‹${path}›`;
  return new Proxy(() => text, {
    get: (_target, property) => {
      if (property === Symbol.toPrimitive || property === 'toString' || property === 'valueOf') return () => text;
      if (typeof property === 'symbol') return undefined;
      return placeholder(`${path}.${property}`);
    },
  });
}

const ANY_IDENTITY = new Proxy({}, { get: (_target, property) => (typeof property === 'string' ? placeholder(property) : undefined) });

/** The key's shape, e.g. `ORG#‹organizationId›#‹id› | RECORD`. Identity field names are left out: only where they go counts. */
function keyShape(entity: AnyEntity): string {
  const { pk, sk } = entity.key(ANY_IDENTITY);
  const unnamed = (part: string) => String(part).replace(/‹[^›]*›/g, '‹›');
  return `${unnamed(pk)} | ${sk === undefined ? '' : unnamed(sk)}`;
}

/** What clashes among declarations: a type tag and schema version declared twice, or two type tags with one key shape. */
function clashes(all: readonly Declaration[]): string[] {
  const problems: string[] = [];
  const byVersion = new Map<string, Declaration>();
  for (const declaration of all) {
    const tag = `${declaration.entity.type}@${declaration.entity.schemaVersion}`;
    const earlier = byVersion.get(tag);
    if (earlier) problems.push(`${tag}: ${earlier.module} ${earlier.name} and ${declaration.module} ${declaration.name}`);
    else byVersion.set(tag, declaration);
  }
  const typesByShape = new Map<string, Set<string>>();
  for (const declaration of all) {
    const shape = keyShape(declaration.entity);
    typesByShape.set(shape, (typesByShape.get(shape) ?? new Set()).add(declaration.entity.type));
  }
  for (const [shape, types] of typesByShape) {
    if (types.size < 2) continue;
    const sorted = [...types].sort();
    const allowed = SHARED_KEY_SHAPES.some(({ types: pair }) => sorted.length === 2 && [...pair].sort().every((type, index) => type === sorted[index]));
    if (!allowed) problems.push(`${sorted.join(', ')} share the key shape ${shape}`);
  }
  return problems;
}

describe('entity declarations', () => {
  it('are found in each area that stores something and in the platform', () => {
    expect(ENTITY_MODULES).toEqual(
      expect.arrayContaining([
        'lib/platform/dynamo/entities.ts',
        ...['attachments', 'boms', 'builds', 'exports', 'imports', 'inventory', 'reservations', 'stock', 'webhooks'].map(
          (area) => `lib/${area}/store/entities.ts`,
        ),
      ]),
    );
  });

  it('live in entity modules only, each exported by name', async () => {
    // Act
    const all = await declarations();

    // Assess: no declaration elsewhere, none hidden from this test inside its module
    const declaringElsewhere = LIB_FILES.filter((file) => file !== MACHINERY && !ENTITY_MODULES.includes(file)).filter((file) =>
      /\bdefineEntity\s*[<(]/.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    expect(declaringElsewhere).toEqual([]);
    for (const module of ENTITY_MODULES) {
      const written = readFileSync(join(ROOT, module), 'utf8').match(/\bdefineEntity\s*[<(]/g)?.length ?? 0;
      expect(all.filter((declaration) => declaration.module === module).length, module).toBe(written);
    }
  });

  it('never share a type tag and schema version, nor a key shape across type tags', async () => {
    const all = await declarations();
    expect(all.length).toBeGreaterThan(40);
    expect(clashes(all)).toEqual([]);
  });

  it('would report a type tag declared twice and two kinds with one key shape', () => {
    // Arrange: two made-up declarations that clash both ways
    const entity = (type: string, sk: string): AnyEntity =>
      ({
        type,
        schemaVersion: 1,
        key: ({ organizationId, id }: { organizationId: string; id: string }) => ({ pk: `ORG#${organizationId}#${id}`, sk }),
      }) as never;
    const all: Declaration[] = [
      { module: 'a.ts', name: 'first', entity: entity('thing', 'A') },
      { module: 'b.ts', name: 'second', entity: entity('thing', 'B') },
      { module: 'c.ts', name: 'third', entity: entity('other', 'A') },
    ];

    // Act
    const found = clashes(all);

    // Assess
    expect(found).toEqual(['thing@1: a.ts first and b.ts second', 'other, thing share the key shape ORG#‹›#‹› | A']);
  });

  it('keep the keys they always had', async () => {
    // A few shapes as stored data holds them: a moved declaration must not move its keys.
    const shapes = new Map(
      (await declarations()).map((declaration) => [`${declaration.entity.type}@${declaration.entity.schemaVersion}`, keyShape(declaration.entity)]),
    );
    expect(shapes.get('inventory-record@2')).toBe('ORG#‹›#‹› | RECORD');
    expect(shapes.get('movement@3')).toBe('ORG#‹›#LIST#movement | AT#‹›#‹›');
    expect(shapes.get('import-row-error@1')).toBe('ORG#‹›#IMPJOB#‹› | ERR#‹›#‹›');
    expect(shapes.get('build-provenance@2')).toBe('ORG#‹›#‹›#SRC#‹› | BLD#‹›');
    expect(shapes.get('build@1')).toBe('ORG#‹›#BUILDS | BLD#‹›');
    expect(shapes.get('webhook-task@1')).toBe('ORG#‹›#WHTASK#‹› | SEQ#00‹›#‹›');
    expect(shapes.get('event@3')).toBe('ORG#‹›#EVT | SEQ#‹›');
  });
});
