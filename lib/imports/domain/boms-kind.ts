import { BOM_LIMITS, hasAllowedDecimals, lineUnitFits, lineUnitMessage, type BomComponentInput, type BomContentInput } from '../../boms/index.ts';
import { contentFromInput, revisionSummary, sameContent } from '../../boms/index.ts';
import type { Bom, BomRevision } from '../../boms/index.ts';
import { newId } from '../../platform/core/ids.ts';
import type { Item } from '../../inventory/index.ts';
import { ITEM_MAX_LENGTHS } from '../../inventory/index.ts';
import { onExistingRecord, RowReader } from './cells.ts';
import type { DecideContext, ImportKindDefinition, ImportUnit, UnitDecision } from './kind-definition.ts';
import type { DuplicateStrategy, RawRow, RowError } from './types.ts';
import { DUPLICATE_STRATEGIES, MAX_FILE_BYTES, MAX_ROWS } from './types.ts';

/**
 * Import kind `boms` (docs/imports.md "Kinds"; the model: docs/boms.md): one row per component
 * line, grouped by `bomCode`. A group creates the BOM (revision 1) or, with duplicateStrategy
 * `update`, replaces its content with a new revision when anything changed. A group with any
 * invalid row applies none of its rows, so a BOM is never half imported.
 */

export interface BomRow {
  bomCode: string;
  /** Absent or empty: a new BOM is named by its code; an existing one keeps its name. */
  name: string | null;
  targetSku: string;
  componentSku: string;
  quantity: number;
  unit: string | null;
  scrapPercent: number | null;
  notes: string | null;
}

/** Who a revision written by an import is credited to (revisions name the API key of a PUT). */
export const IMPORT_REVISION_AUTHOR = 'import';

function parseBomRow(raw: RawRow, rowNumber: number) {
  const cells = new RowReader(raw, rowNumber);
  const bomCode = cells.requiredIdentifier('bomCode', BOM_LIMITS.code);
  const name = cells.optionalText('name', BOM_LIMITS.name);
  const targetSku = cells.requiredIdentifier('targetSku', ITEM_MAX_LENGTHS.sku);
  const componentSku = cells.requiredIdentifier('componentSku', ITEM_MAX_LENGTHS.sku);
  const quantityCell = cells.cell('quantity') ?? '';
  const quantity = quantityCell.trim() === '' ? undefined : cells.optionalNumber('quantity', { min: 0 });
  if (quantityCell.trim() === '') cells.error('quantity', quantityCell, 'required', 'quantity is required.');
  else if (typeof quantity === 'number' && (quantity <= 0 || !hasAllowedDecimals(quantityCell))) {
    cells.error('quantity', quantityCell, 'invalid-number', `quantity must be greater than 0, with at most ${BOM_LIMITS.quantityDecimals} decimals.`);
  }
  const unit = cells.optionalIdentifier('unit', BOM_LIMITS.unit);
  const scrapPercent = cells.optionalNumber('scrapPercent', { min: 0 });
  if (typeof scrapPercent === 'number' && (scrapPercent > 100 || !hasAllowedDecimals(cells.cell('scrapPercent') ?? ''))) {
    cells.error(
      'scrapPercent',
      cells.cell('scrapPercent') ?? '',
      'invalid-number',
      `scrapPercent must be between 0 and 100, with at most ${BOM_LIMITS.quantityDecimals} decimals.`,
    );
  }
  const notes = cells.optionalText('notes', BOM_LIMITS.lineNotes);
  return cells.result<BomRow>(() =>
    bomCode === undefined || targetSku === undefined || componentSku === undefined || typeof quantity !== 'number'
      ? undefined
      : { bomCode, name: name ?? null, targetSku, componentSku, quantity, unit: unit ?? null, scrapPercent: scrapPercent ?? null, notes: notes ?? null },
  );
}

/** A problem of the group as a whole, reported on the row that shows it. */
function groupError(row: number, column: string, value: string, message: string): { action: 'failed'; error: RowError } {
  return { action: 'failed', error: { rowNumber: row, column, value, code: 'invalid-value', message } };
}

/** The BOM the group describes, or the row error that keeps it from being one. */
function contentOf(unit: ImportUnit<BomRow>, context: DecideContext): { input: BomContentInput; name: string | null } | { action: 'failed'; error: RowError } {
  const [first] = unit.rows;
  if (!first) throw new Error('A boms unit has at least one row');
  const components: BomComponentInput[] = [];
  const seen = new Map<string, number>();
  let name = first.name;
  for (const [index, row] of unit.rows.entries()) {
    const rowNumber = unit.rowNumbers[index] ?? context.rowNumber;
    if (row.targetSku !== first.targetSku) {
      return groupError(
        rowNumber,
        'targetSku',
        row.targetSku,
        `targetSku "${row.targetSku}" differs from "${first.targetSku}" on row ${unit.rowNumbers[0]} of the same bomCode.`,
      );
    }
    if (row.name !== null && name !== null && row.name !== name) {
      return groupError(rowNumber, 'name', row.name, `name "${row.name}" differs from "${name}" on an earlier row of the same bomCode.`);
    }
    name ??= row.name;
    if (row.componentSku === row.targetSku) {
      return groupError(rowNumber, 'componentSku', row.componentSku, 'The target item cannot be a component of its own BOM.');
    }
    const earlier = seen.get(row.componentSku);
    if (earlier !== undefined) {
      return groupError(
        rowNumber,
        'componentSku',
        row.componentSku,
        `componentSku "${row.componentSku}" is already a line of this BOM on row ${earlier}; an item appears once per BOM.`,
      );
    }
    seen.set(row.componentSku, rowNumber);
    const item = context.resolve('item', row.componentSku);
    if (!item) throw new Error(`componentSku ${row.componentSku} was validated but is not loaded`);
    const itemUnit = (item.record as Item).unit;
    if (row.unit !== null && !lineUnitFits(row.unit, itemUnit)) return groupError(rowNumber, 'unit', row.unit, lineUnitMessage(row.unit, itemUnit));
    components.push({
      itemId: (item.record as Item).id,
      quantity: row.quantity,
      unit: row.unit,
      notes: row.notes,
      ...(row.scrapPercent === null ? {} : { scrapPercent: row.scrapPercent }),
    });
  }
  if (components.length > BOM_LIMITS.components) {
    return groupError(
      context.rowNumber,
      'bomCode',
      first.bomCode,
      `A BOM has at most ${BOM_LIMITS.components} component lines; this one has ${components.length}.`,
    );
  }
  const target = context.resolve('item', first.targetSku);
  if (!target) throw new Error(`targetSku ${first.targetSku} was validated but is not loaded`);
  return { input: { name: name ?? first.bomCode, targetItemId: (target.record as Item).id, components }, name };
}

function decideBom(
  unit: ImportUnit<BomRow>,
  existing: { record: Bom; version: number } | undefined,
  strategy: DuplicateStrategy,
  context: DecideContext,
): UnitDecision {
  const described = contentOf(unit, context);
  if ('action' in described) return described;
  const code = unit.rows[0]?.bomCode ?? '';
  if (!existing) {
    const id = context.newId();
    const content = contentFromInput(described.input, undefined, () => newId('lin'));
    const revision: BomRevision = {
      id: newId('rev'),
      bomId: id,
      number: 1,
      createdAt: context.now,
      createdBy: IMPORT_REVISION_AUTHOR,
      summary: revisionSummary(undefined, content),
      content,
    };
    const bom: Bom = { id, code, ...content, archived: false, revision: { id: revision.id, number: 1 }, createdAt: context.now, updatedAt: context.now };
    return { action: 'created', writes: [{ op: 'create-bom', bom, revision }], events: [] };
  }
  const duplicate = onExistingRecord(strategy, {
    rowNumber: context.rowNumber,
    column: 'bomCode',
    value: code,
    message: `A BOM with code "${code}" already exists (duplicateStrategy fail).`,
  });
  if (duplicate) return duplicate;
  const previous = existing.record;
  // The header fields a file cannot carry keep their values; its name only when given.
  const input = {
    ...described.input,
    name: described.name ?? previous.name,
    status: previous.status,
    outputQuantity: previous.outputQuantity,
    unit: previous.unit,
    notes: previous.notes,
  };
  const content = contentFromInput(input, previous, () => newId('lin'));
  if (sameContent(previous, content)) return { action: 'skipped', events: [] };
  const number = previous.revision.number + 1;
  const revision: BomRevision = {
    id: newId('rev'),
    bomId: previous.id,
    number,
    createdAt: context.now,
    createdBy: IMPORT_REVISION_AUTHOR,
    summary: revisionSummary(previous, content),
    content,
  };
  const bom: Bom = { ...previous, ...content, revision: { id: revision.id, number }, updatedAt: context.now };
  return { action: 'updated', writes: [{ op: 'update-bom', bom, expectedVersion: existing.version, revision }], events: [] };
}

export const bomsKind: ImportKindDefinition<BomRow, Bom> = {
  kind: 'boms',
  title: 'BOMs',
  description:
    'Creates BOMs, one per bomCode, from one row per component line; with duplicateStrategy update, an existing BOM gets a new revision when its lines, target or name changed (status, outputQuantity, unit and notes keep their values). All rows of a bomCode share targetSku and name. A bomCode with any invalid row is not applied at all. No events.',
  columns: [
    {
      name: 'bomCode',
      required: true,
      type: 'string',
      description: `BOM code; the natural key, and the group of the row. At most ${BOM_LIMITS.code} characters, no leading or trailing spaces.`,
    },
    {
      name: 'name',
      required: false,
      type: 'string',
      description: `BOM name, at most ${BOM_LIMITS.name} characters; a new BOM without one is named by its code.`,
    },
    { name: 'targetSku', required: true, type: 'string', description: 'sku of the item the BOM makes; an item of the organization.' },
    { name: 'componentSku', required: true, type: 'string', description: 'sku of the component item of this line; an item of the organization, once per BOM.' },
    {
      name: 'quantity',
      required: true,
      type: 'number',
      description: `Quantity of the component, greater than 0, at most ${BOM_LIMITS.quantityDecimals} decimals.`,
    },
    {
      name: 'unit',
      required: false,
      type: 'string',
      description: `Unit of the quantity: empty or the component item's own unit (units are not converted), at most ${BOM_LIMITS.unit} characters.`,
    },
    {
      name: 'scrapPercent',
      required: false,
      type: 'number',
      description: `Expected scrap of the component, 0 to 100, at most ${BOM_LIMITS.quantityDecimals} decimals. Default 0.`,
    },
    { name: 'notes', required: false, type: 'string', description: `Notes on the line, at most ${BOM_LIMITS.lineNotes} characters.` },
  ],
  naturalKey: ['bomCode'],
  duplicateStrategies: DUPLICATE_STRATEGIES,
  maxFileBytes: MAX_FILE_BYTES,
  maxRows: MAX_ROWS,
  entity: 'bom',
  parseRow: parseBomRow,
  naturalKeyOf: (row) => row.bomCode,
  // Trimmed: a line whose bomCode has a stray space is invalid, and must spoil its BOM, not form a group of its own.
  groupKeyOf: (raw) => (raw.bomcode ?? '').trim(),
  references: (row) => [
    { entity: 'item', key: row.targetSku, column: 'targetSku', code: 'unknown-sku' },
    { entity: 'item', key: row.componentSku, column: 'componentSku', code: 'unknown-sku' },
  ],
  decideUnit: decideBom,
};
