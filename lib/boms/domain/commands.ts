import { ApiError, NotFoundError, ValidationError, type FieldError } from '../../platform/core/errors.ts';
import { newId } from '../../platform/core/ids.ts';
import type { Item } from '../../inventory/index.ts';
import type { InventoryRecords, VersionedRecord } from '../../inventory/index.ts';
import type { CommandPlan } from '../../platform/write/ports.ts';
import { BOM_HEADER_FIELDS, lineUnitFits, lineUnitMessage, type BomContent, type BomContentInput } from './bom.ts';
import { compareContents } from './compare.ts';
import { contentFromInput, revisionSummary, sameContent } from './content.ts';
import { RevisionConflictError } from './errors.ts';
import type { Bom, BomRevision, BomStorage } from './records.ts';

/**
 * Creating and updating BOMs (docs/boms.md "Revisions"): the command plans the writer commits with
 * the audit entry and the Idempotency-Key completion in one transaction. Every create, and every
 * update that changes the content, writes the next immutable revision; the BOM's version
 * condition makes concurrent updates of one revision commit once.
 */

export interface CreateBomInput extends BomContentInput {
  code: string;
}

export interface UpdateBomInput extends BomContentInput {
  archived?: boolean;
  expectedRevisionNumber?: number;
}

/** The ETag of a BOM: it changes with every committed change, content or archiving. */
export function bomETag(bom: Bom, version: number): string {
  return `"${bom.revision.number}.${version}"`;
}

/**
 * Items a BOM may name and still have them checked inside its write transaction: the BOM's own
 * writes (at most 5 with a revision) plus audit, idempotency record and checks stay well under
 * DynamoDB's 100 actions.
 */
const MAX_ITEM_CHECKS_IN_TRANSACTION = 60;

export interface BomCommandPorts<Write> {
  boms: Pick<BomStorage<Write>, 'get' | 'createWrites' | 'updateWrites'>;
  items: Pick<InventoryRecords<Write>, 'getByIds' | 'existsCheck' | 'unchangedCheck'>;
  clock?: () => Date;
}

/** What creating and updating a BOM share: the item checks, the revision, the clock. */
class BomCommandSupport<Write> {
  constructor(protected readonly ports: BomCommandPorts<Write>) {}

  protected revision(bomId: string, number: number, createdBy: string, now: string, previous: BomContent | undefined, content: BomContent): BomRevision {
    return { id: newId('rev'), bomId, number, createdAt: now, createdBy, summary: revisionSummary(previous, content), content };
  }

  /**
   * Every item the BOM names must be the organization's, and a line's unit its item's (or none).
   * A BOM naming few items checks them in its own transaction, reading before the write only the
   * items of lines that name a unit (their check is then that they are unchanged since); when a
   * check fails, or the BOM names more items than a transaction has room for, one batch lookup
   * says which, a pointer per field.
   */
  protected async itemChecks(organizationId: string, input: BomContentInput): Promise<Write[]> {
    const ids = new Set([input.targetItemId, ...input.components.map((component) => component.itemId)]);
    if (ids.size > MAX_ITEM_CHECKS_IN_TRANSACTION) {
      await this.requireItems(organizationId, input);
      return [];
    }
    const withUnit = new Set(input.components.filter((component) => component.unit != null).map((component) => component.itemId));
    const read = withUnit.size === 0 ? new Map<string, VersionedRecord<Item>>() : await this.ports.items.getByIds(organizationId, 'item', withUnit);
    if (read.size < withUnit.size) await this.requireItems(organizationId, input);
    requireLineUnits(input, read);
    const explain = async (): Promise<Error> => {
      await this.requireItems(organizationId, input);
      // All items exist again: one was gone while the transaction ran and is back.
      return new ApiError(409, 'customer-api.request.conflict', 'Conflict', { detail: 'An item the BOM names changed concurrently; retry the request.' });
    };
    return [...ids].map((id) => {
      const checked = read.get(id);
      return checked
        ? this.ports.items.unchangedCheck(organizationId, 'item', checked.record, checked.version)
        : this.ports.items.existsCheck(organizationId, 'item', id, explain);
    });
  }

  /** Every item the BOM names must be the organization's, each line in its item's unit or none: one batch lookup, a pointer per offending field. */
  private async requireItems(organizationId: string, input: BomContentInput): Promise<void> {
    const ids = [input.targetItemId, ...input.components.map((component) => component.itemId)];
    const found = await this.ports.items.getByIds(organizationId, 'item', new Set(ids));
    const errors: FieldError[] = [];
    const unknown = (pointer: string, id: string) =>
      errors.push({ location: 'body', pointer, code: 'unknown-item', message: `No item '${id}' in the organization.` });
    if (!found.has(input.targetItemId)) unknown('/targetItemId', input.targetItemId);
    input.components.forEach((component, index) => {
      if (!found.has(component.itemId)) unknown(`/components/${index}/itemId`, component.itemId);
    });
    if (errors.length > 0) throw new ValidationError(errors, 'The BOM names items that do not exist in the organization; see `errors`.');
    requireLineUnits(input, found);
  }

  protected now(): string {
    return (this.ports.clock?.() ?? new Date()).toISOString();
  }
}

/**
 * `POST /v1/boms` and `PUT /v1/boms/{id}` each build only their own command, so neither function
 * bundles the other's code (docs/performance.md "Bundles"); BomCommands has both.
 */
export class CreateBomCommand<Write> extends BomCommandSupport<Write> {
  async create(organizationId: string, createdBy: string, input: CreateBomInput): Promise<CommandPlan<{ bom: Bom; version: number }, Write>> {
    const itemChecks = await this.itemChecks(organizationId, input);
    const now = this.now();
    const id = newId('bom');
    const content = contentFromInput(input, undefined, () => newId('lin'));
    const revision = this.revision(id, 1, createdBy, now, undefined, content);
    const bom: Bom = { id, code: input.code, ...content, archived: false, revision: { id: revision.id, number: 1 }, createdAt: now, updatedAt: now };
    return {
      writes: [...this.ports.boms.createWrites(organizationId, bom, revision), ...itemChecks],
      audit: { kind: 'bom.created', target: { kind: 'bom', id }, summary: `BOM ${bom.code} created (revision 1, ${bom.lines.length} lines)`, changes: [] },
      events: [],
      result: { bom, version: 1 },
    };
  }
}

export class UpdateBomCommand<Write> extends BomCommandSupport<Write> {
  /**
   * `ifMatch` (an ETag) or `input.expectedRevisionNumber` must name the BOM as it is, when given;
   * the stale one is a 409 `revision-conflict`.
   */
  async update(
    organizationId: string,
    createdBy: string,
    bomId: string,
    input: UpdateBomInput,
    ifMatch: string | undefined,
  ): Promise<CommandPlan<{ bom: Bom; version: number }, Write>> {
    const current = await this.ports.boms.get(organizationId, bomId);
    if (!current) throw new NotFoundError('boms', 'No BOM with this id.');
    const { bom: previous, version } = current;
    if (input.expectedRevisionNumber !== undefined && input.expectedRevisionNumber !== previous.revision.number) {
      throw new RevisionConflictError(previous.revision.number);
    }
    if (ifMatch !== undefined && !matches(ifMatch, bomETag(previous, version))) throw new RevisionConflictError(previous.revision.number);
    const itemChecks = await this.itemChecks(organizationId, input);
    const now = this.now();
    const content = contentFromInput(input, previous, () => newId('lin'));
    const changed = !sameContent(previous, content);
    const archived = input.archived ?? previous.archived;
    const number = previous.revision.number + 1;
    const revision = changed ? this.revision(bomId, number, createdBy, now, previous, content) : undefined;
    const bom: Bom = {
      ...previous,
      ...(changed ? content : {}),
      archived,
      revision: revision ? { id: revision.id, number } : previous.revision,
      updatedAt: changed || archived !== previous.archived ? now : previous.updatedAt,
    };
    const headerChanges = compareContents(contentOf(previous), contentOf(bom)).fields;
    const changes = [...headerChanges, ...(archived !== previous.archived ? [{ field: 'archived', from: previous.archived, to: archived }] : [])];
    const nothing = !changed && archived === previous.archived;
    return {
      writes: nothing ? [] : [...this.ports.boms.updateWrites(organizationId, bom, version, revision), ...itemChecks],
      audit: {
        kind: 'bom.updated',
        target: { kind: 'bom', id: bomId },
        summary: nothing ? `BOM ${bom.code} unchanged` : `BOM ${bom.code} updated${revision ? ` (revision ${number}: ${describe(revision)})` : ''}`,
        changes,
      },
      events: [],
      result: { bom, version: nothing ? version : version + 1 },
    };
  }
}

/** Both BOM commands, for callers that run both (tools, tests). */
export class BomCommands<Write> {
  private readonly creating: CreateBomCommand<Write>;
  private readonly updating: UpdateBomCommand<Write>;

  constructor(ports: BomCommandPorts<Write>) {
    this.creating = new CreateBomCommand(ports);
    this.updating = new UpdateBomCommand(ports);
  }

  create(...args: Parameters<CreateBomCommand<Write>['create']>): ReturnType<CreateBomCommand<Write>['create']> {
    return this.creating.create(...args);
  }

  update(...args: Parameters<UpdateBomCommand<Write>['update']>): ReturnType<UpdateBomCommand<Write>['update']> {
    return this.updating.update(...args);
  }
}

/** Each line that names a unit names its item's (items absent from `items` are not judged here). */
function requireLineUnits(input: BomContentInput, items: ReadonlyMap<string, VersionedRecord<Item>>): void {
  const errors: FieldError[] = [];
  input.components.forEach((component, index) => {
    const item = items.get(component.itemId)?.record;
    if (!item || component.unit == null || lineUnitFits(component.unit, item.unit)) return;
    errors.push({ location: 'body', pointer: `/components/${index}/unit`, code: 'unit-mismatch', message: lineUnitMessage(component.unit, item.unit) });
  });
  if (errors.length > 0) throw new ValidationError(errors, "A line's unit must be empty or its item's unit; see `errors`.");
}

function contentOf(bom: Bom): BomContent {
  const content = {} as Record<string, unknown>;
  for (const field of BOM_HEADER_FIELDS) content[field] = bom[field];
  return { ...(content as Omit<BomContent, 'lines'>), lines: bom.lines };
}

function describe(revision: BomRevision): string {
  const { added, removed, changed } = revision.summary;
  return `${added} added, ${removed} removed, ${changed} changed`;
}

/** `If-Match` may list several ETags, or `*` for any current version. */
function matches(ifMatch: string, etag: string): boolean {
  return ifMatch
    .split(',')
    .map((candidate) => candidate.trim().replace(/^W\//, ''))
    .some((candidate) => candidate === '*' || candidate === etag);
}
