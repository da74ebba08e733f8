import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { schemaErrors } from '../support/json-schema.ts';
import { afterAll, describe, expect, it } from 'vitest';
import {
  domainEventSchema,
  EVENT_DATA_SCHEMAS,
  EVENT_EXAMPLES,
  EVENT_SCHEMAS,
  EVENT_TYPES,
  eventEnvelopeSchema,
  eventsPageSchema,
  type EventType,
} from '../../lib/events/contracts/events.ts';
import {
  buildEventSchemaFiles,
  ENVELOPE_SCHEMA_FILE,
  exampleFileOf,
  findEventSchemaDrift,
  schemaFileOf,
  serializeJson,
} from '../../lib/events/contracts/schema-files.ts';
import type { JsonObject, JsonValue } from '../../lib/platform/contracts/json.ts';
import { ORGANIZATION_ID_PATTERN } from '../../lib/platform/auth/manage-keys.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCHEMA_DIR = join(ROOT, 'events-schema');

function readJson(path: string): JsonValue {
  return JSON.parse(readFileSync(join(SCHEMA_DIR, path), 'utf8')) as JsonValue;
}

function asObject(value: JsonValue | undefined, what: string): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${what} is not a JSON object`);
  return value;
}

/** A deep copy of an example as plain JSON, to mutate. */
function exampleCopy(type: EventType): JsonObject {
  return asObject(JSON.parse(JSON.stringify(EVENT_EXAMPLES[type])) as JsonValue, `example ${type}`);
}

const validator = { name: 'ajv (draft 2020-12)', errors: (schema: JsonObject, value: unknown) => schemaErrors(schema, value) };

// ---------------------------------------------------------------------------------------------

describe('events-schema/ (committed) against the generator', () => {
  const generated = buildEventSchemaFiles();

  it('has exactly the generated files, with the same content (drift)', () => {
    // Act
    const drift = findEventSchemaDrift(SCHEMA_DIR);

    // Assess
    expect(drift, 'events-schema/ is out of date: run `npm run events-schema` and commit the result').toEqual({ missing: [], changed: [], unexpected: [] });
  });

  it.each(generated.map((file) => [file.path, file] as const))('%s equals the generated file', (path, file) => {
    // Act
    const committed = readFileSync(join(SCHEMA_DIR, path), 'utf8');

    // Assess
    expect(committed, 'run `npm run events-schema`').toBe(file.content);
  });

  it('lists an envelope schema, a schema and an example per type, and a README', () => {
    // Act
    const paths = generated.map((file) => file.path);

    // Assess
    expect(paths).toEqual([
      ENVELOPE_SCHEMA_FILE,
      ...EVENT_TYPES.map((type) => schemaFileOf(type)),
      ...EVENT_TYPES.map((type) => exampleFileOf(type)),
      'README.md',
    ]);
  });

  it('is deterministic: 2-space JSON with a trailing newline', () => {
    // Act
    const again = buildEventSchemaFiles();

    // Assess
    expect(again).toEqual(generated);
    for (const file of generated.filter((entry) => entry.path.endsWith('.json'))) {
      expect(file.content).toBe(serializeJson(JSON.parse(file.content)));
    }
  });
});

describe('findEventSchemaDrift', () => {
  const directory = mkdtempSync(join(tmpdir(), 'events-schema-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('reports changed, missing and unexpected files', () => {
    // Prepare
    cpSync(SCHEMA_DIR, directory, { recursive: true });
    writeFileSync(join(directory, schemaFileOf('low-stock')), '{}\n');
    rmSync(join(directory, exampleFileOf('po.received')));
    writeFileSync(join(directory, 'examples/stale.json'), '{}\n');

    // Act
    const drift = findEventSchemaDrift(directory);

    // Assess
    expect(drift).toEqual({ changed: [schemaFileOf('low-stock')], missing: [exampleFileOf('po.received')], unexpected: ['examples/stale.json'] });
  });
});

describe('scripts/generate-events-schema.ts --check', () => {
  it('exits 0 on the committed files', async () => {
    // Act
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', 'scripts/generate-events-schema.ts', '--check'], { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
    });

    // Assess
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('up to date');
  });
});

describe(`published JSON Schemas (${validator.name})`, () => {
  const envelopeSchema = asObject(readJson(ENVELOPE_SCHEMA_FILE), ENVELOPE_SCHEMA_FILE);
  const schemaOf = (type: EventType) => asObject(readJson(schemaFileOf(type)), schemaFileOf(type));
  const allSchemas = [ENVELOPE_SCHEMA_FILE, ...EVENT_TYPES.map((type) => schemaFileOf(type))];

  it.each(allSchemas)('%s declares JSON Schema draft 2020-12', (path) => {
    // Act
    const schema = asObject(readJson(path), path);

    // Assess
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.type).toBe('object');
  });

  it.each(allSchemas)('%s never closes an object (no additionalProperties: false)', (path) => {
    // Prepare
    const closed: string[] = [];
    const walk = (value: JsonValue, at: string): void => {
      if (Array.isArray(value)) value.forEach((item, index) => walk(item, `${at}/${index}`));
      else if (typeof value === 'object' && value !== null) {
        if (value.additionalProperties === false || value.unevaluatedProperties === false) closed.push(at || '/');
        for (const [key, child] of Object.entries(value)) walk(child, `${at}/${key}`);
      }
    };

    // Act
    walk(readJson(path), '');

    // Assess
    expect(closed).toEqual([]);
  });

  it.each(EVENT_TYPES)('%s: the committed example is EVENT_EXAMPLES and validates against its schema and the envelope schema', (type) => {
    // Prepare
    const example = readJson(exampleFileOf(type));

    // Act
    const typedErrors = validator.errors(schemaOf(type), example);
    const envelopeErrors = validator.errors(envelopeSchema, example);

    // Assess
    expect(example).toEqual(EVENT_EXAMPLES[type]);
    expect(typedErrors).toEqual([]);
    expect(envelopeErrors).toEqual([]);
  });

  it.each(EVENT_TYPES)('%s: unknown extra fields in the envelope and in data are accepted (forward compatibility)', (type) => {
    // Prepare
    const event = exampleCopy(type);
    event.deliveryAttempt = 3;
    event.meta = { source: 'import', nested: { any: ['thing'] } };
    asObject(event.data, 'data').addedLater = 'a field of a future compatible version';

    // Act
    const typedErrors = validator.errors(schemaOf(type), event);
    const envelopeErrors = validator.errors(envelopeSchema, event);
    const parsed = domainEventSchema.safeParse(event);

    // Assess
    expect(typedErrors).toEqual([]);
    expect(envelopeErrors).toEqual([]);
    expect(parsed.success).toBe(true);
  });

  it('pins organizationId to the pattern the key tooling enforces', () => {
    // Act
    const property = asObject(asObject(envelopeSchema.properties, 'properties').organizationId, 'organizationId');

    // Assess
    expect(property.pattern).toBe(ORGANIZATION_ID_PATTERN.source);
  });
});

describe('zod contracts', () => {
  it('lists the eight event types of the event catalog (docs/events.md) in order', () => {
    // Assess
    expect(EVENT_TYPES).toEqual([
      'stock.changed',
      'item.created',
      'item.updated',
      'movement.created',
      'po.received',
      'count.completed',
      'low-stock',
      'export.completed',
    ]);
  });

  it.each(EVENT_TYPES)('%s: the example parses unchanged with domainEventSchema, its typed schema and the envelope', (type) => {
    // Prepare
    const example = EVENT_EXAMPLES[type];

    // Act
    const asDomainEvent = domainEventSchema.parse(example);
    const asTyped = EVENT_SCHEMAS[type].parse(example);
    const asEnvelope = eventEnvelopeSchema.parse(example);
    const data = EVENT_DATA_SCHEMAS[type].parse(example.data);

    // Assess
    expect(example.type).toBe(type);
    expect(asDomainEvent).toEqual(example);
    expect(asTyped).toEqual(example);
    expect(asEnvelope).toEqual(example);
    expect(data).toEqual(example.data);
  });

  it('accepts a page of events and an empty page, both with a string nextCursor', () => {
    // Prepare
    const full = { data: EVENT_TYPES.map((type) => EVENT_EXAMPLES[type]), page: { nextCursor: 'c1' } };
    const empty = { data: [], page: { nextCursor: 'c2' } };

    // Act
    const results = [eventsPageSchema.safeParse(full), eventsPageSchema.safeParse(empty)];

    // Assess
    expect(results.map((result) => result.success)).toEqual([true, true]);
  });

  it.each([
    ['null', null],
    ['empty', ''],
    ['missing', undefined],
  ])('rejects a page whose nextCursor is %s (the feed always returns a cursor)', (_name, nextCursor) => {
    // Act
    const result = eventsPageSchema.safeParse({ data: [], page: nextCursor === undefined ? {} : { nextCursor } });

    // Assess
    expect(result.success).toBe(false);
  });
});

interface NegativeCase {
  name: string;
  base: EventType;
  mutate(event: JsonObject): void;
  /** Whether the generic envelope schema (untyped `data`) must reject it too. */
  envelopeRejects: boolean;
}

const data = (event: JsonObject): JsonObject => asObject(event.data, 'data');

const NEGATIVE_CASES: NegativeCase[] = [
  {
    name: 'version 2',
    base: 'stock.changed',
    envelopeRejects: true,
    mutate: (event) => {
      event.version = 2;
    },
  },
  {
    name: 'version "1" (a string)',
    base: 'item.created',
    envelopeRejects: true,
    mutate: (event) => {
      event.version = '1';
    },
  },
  {
    name: 'missing occurredAt',
    base: 'stock.changed',
    envelopeRejects: true,
    mutate: (event) => {
      delete event.occurredAt;
    },
  },
  {
    name: 'occurredAt without Z',
    base: 'stock.changed',
    envelopeRejects: true,
    mutate: (event) => {
      event.occurredAt = '2026-03-03T11:02:44.118';
    },
  },
  {
    name: 'occurredAt with an offset',
    base: 'low-stock',
    envelopeRejects: true,
    mutate: (event) => {
      event.occurredAt = '2026-03-05T08:12:30+01:00';
    },
  },
  {
    name: 'an unknown type',
    base: 'stock.changed',
    envelopeRejects: true,
    mutate: (event) => {
      event.type = 'stock.exploded';
    },
  },
  {
    name: 'an id without the evt_ prefix',
    base: 'po.received',
    envelopeRejects: true,
    mutate: (event) => {
      event.id = '000000010H77BWTBB5F3Q31VNQ';
    },
  },
  {
    name: 'a malformed organizationId',
    base: 'po.received',
    envelopeRejects: true,
    mutate: (event) => {
      event.organizationId = 'acme';
    },
  },
  {
    name: 'missing data',
    base: 'low-stock',
    envelopeRejects: true,
    mutate: (event) => {
      delete event.data;
    },
  },
  {
    name: 'stock.changed missing quantity',
    base: 'stock.changed',
    envelopeRejects: false,
    mutate: (event) => {
      delete data(event).quantity;
    },
  },
  {
    name: 'stock.changed with quantity as a string',
    base: 'stock.changed',
    envelopeRejects: false,
    mutate: (event) => {
      data(event).quantity = '380';
    },
  },
  {
    name: 'stock.changed missing lot (null is the "no lot" value)',
    base: 'stock.changed',
    envelopeRejects: false,
    mutate: (event) => {
      delete data(event).lot;
    },
  },
  {
    name: 'stock.changed carrying item.created data',
    base: 'stock.changed',
    envelopeRejects: false,
    mutate: (event) => {
      event.data = exampleCopy('item.created').data ?? null;
    },
  },
  {
    name: 'movement.created with an unknown movement type',
    base: 'movement.created',
    envelopeRejects: false,
    mutate: (event) => {
      asObject(data(event).movement, 'movement').type = 'theft';
    },
  },
  {
    name: 'item.updated with no changedFields',
    base: 'item.updated',
    envelopeRejects: false,
    mutate: (event) => {
      data(event).changedFields = [];
    },
  },
  {
    name: 'item.created with trackingMode "serial"',
    base: 'item.created',
    envelopeRejects: false,
    mutate: (event) => {
      asObject(data(event).item, 'item').trackingMode = 'serial';
    },
  },
  {
    name: 'po.received without lines',
    base: 'po.received',
    envelopeRejects: false,
    mutate: (event) => {
      data(event).lines = [];
    },
  },
  {
    name: 'export.completed with a fractional rowCount',
    base: 'export.completed',
    envelopeRejects: false,
    mutate: (event) => {
      data(event).rowCount = 1.5;
    },
  },
];

describe(`invalid events are rejected by the JSON Schemas (${validator.name}) and by zod`, () => {
  const envelopeSchema = asObject(readJson(ENVELOPE_SCHEMA_FILE), ENVELOPE_SCHEMA_FILE);

  it.each(NEGATIVE_CASES.map((entry) => [entry.name, entry] as const))('%s', (_name, entry) => {
    // Prepare
    const event = exampleCopy(entry.base);
    entry.mutate(event);
    const typedSchema = asObject(readJson(schemaFileOf(entry.base)), schemaFileOf(entry.base));

    // Act
    const typedErrors = validator.errors(typedSchema, event);
    const envelopeErrors = validator.errors(envelopeSchema, event);
    const asDomainEvent = domainEventSchema.safeParse(event);
    const asTyped = EVENT_SCHEMAS[entry.base].safeParse(event);
    const asEnvelope = eventEnvelopeSchema.safeParse(event);

    // Assess
    expect(typedErrors).not.toEqual([]);
    expect(asDomainEvent.success).toBe(false);
    expect(asTyped.success).toBe(false);
    expect(envelopeErrors.length > 0).toBe(entry.envelopeRejects);
    expect(asEnvelope.success).toBe(!entry.envelopeRejects);
  });
});
