import type { AuditActor } from '../../platform/audit/types.ts';
import type { Bom } from '../../boms/index.ts';
import { ValidationError, type FieldError } from '../../platform/core/errors.ts';
import { ArchivedError, stockRecordKey } from '../../inventory/index.ts';
import { buildClaimKey } from '../../stock/index.ts';
import type { CommandPlan } from '../../platform/write/ports.ts';
import { BuildReferenceTakenError, queuedBuild, type Build, type BuildSource } from './build.ts';
import type { BuildPorts } from './ports.ts';

/**
 * `POST /v1/builds` (docs/boms.md "Builds"): checks what the build names — its BOM (draft or
 * active, its target still an item), its location, its output lot, its sources (components of the
 * BOM, each place once) — and queues it, in one transaction with the claim of its buildReference.
 * Whether there is stock enough is the job's to find out: it reserves first.
 */

export interface BuildSourceInput {
  itemId?: string;
  sku?: string;
  lot: string | null;
  locationCode?: string;
}

export interface BuildInput {
  buildReference: string;
  bomId?: string;
  bomCode?: string;
  quantity: number;
  locationId?: string;
  locationCode?: string;
  outputLot: string | null;
  sources: BuildSourceInput[];
}

export class SubmitBuildCommand<Write> {
  constructor(private readonly ports: Pick<BuildPorts<Write>, 'builds' | 'boms' | 'references' | 'clock'>) {}

  async submit(organizationId: string, input: BuildInput, submittedBy: AuditActor): Promise<CommandPlan<Build, Write>> {
    const { ports } = this;
    const claimKey = buildClaimKey(input.buildReference);
    const skus = input.sources.flatMap((source) => (source.sku === undefined ? [] : [source.sku]));
    const codes = [input.locationCode, ...input.sources.map((source) => source.locationCode)].filter((code): code is string => code !== undefined);
    const [found, bom] = await Promise.all([
      ports.references(organizationId, {
        skus,
        itemIds: input.sources.flatMap((source) => (source.itemId === undefined ? [] : [source.itemId])),
        codes,
        locationIds: input.locationId === undefined ? [] : [input.locationId],
        claimKeys: [claimKey],
      }),
      this.bomOf(organizationId, input),
    ]);
    const taken = found.claims.get(claimKey);
    if (taken) throw new BuildReferenceTakenError(input.buildReference, taken.buildId ?? null);

    const errors: FieldError[] = [];
    const refuse = (pointer: string, code: string, message: string) => errors.push({ location: 'body', pointer, code, message });
    const bomPointer = input.bomId !== undefined ? '/bomId' : '/bomCode';
    if (!bom) refuse(bomPointer, 'unknown-bom', 'No BOM of the organization has this id or code.');
    else if (bom.archived || bom.status === 'obsolete')
      refuse(bomPointer, 'bom-not-buildable', `BOM "${bom.code}" is ${bom.archived ? 'archived' : 'obsolete'}; builds use draft or active BOMs.`);
    const location = input.locationId !== undefined ? found.locationsById.get(input.locationId) : found.locationsByCode.get(input.locationCode ?? '');
    if (!location)
      refuse(input.locationId !== undefined ? '/locationId' : '/locationCode', 'unknown-location', 'No location of the organization has this id or code.');

    const components = new Set(bom?.lines.map((line) => line.itemId));
    const sources: BuildSource[] = [];
    const seen = new Set<string>();
    input.sources.forEach((source, index) => {
      const item = source.itemId !== undefined ? found.itemsById.get(source.itemId) : found.itemsBySku.get(source.sku ?? '');
      const at = source.locationCode === undefined ? location : found.locationsByCode.get(source.locationCode);
      if (!item)
        return refuse(`/sources/${index}/${source.itemId !== undefined ? 'itemId' : 'sku'}`, 'unknown-item', 'No item of the organization has this id or sku.');
      if (!at)
        return source.locationCode === undefined
          ? undefined
          : refuse(`/sources/${index}/locationCode`, 'unknown-location', 'No location of the organization has this code.');
      if (bom && !components.has(item.id)) return refuse(`/sources/${index}`, 'not-a-component', `"${item.sku}" is not a component of BOM "${bom.code}".`);
      if (item.trackingMode === 'lot' && source.lot === null)
        return refuse(
          `/sources/${index}/lot`,
          'lot-required',
          `Item "${item.sku}" is tracked by lot: name the lot to draw from, or leave the component out of sources to draw its oldest lots.`,
        );
      if (item.trackingMode !== 'lot' && source.lot !== null)
        return refuse(`/sources/${index}/lot`, 'lot-not-allowed', `Item "${item.sku}" is not tracked by lot: leave lot out.`);
      const place = stockRecordKey(item.id, at.id, source.lot);
      if (seen.has(place)) return refuse(`/sources/${index}`, 'duplicate-source', `The same source of "${item.sku}" is named twice.`);
      seen.add(place);
      sources.push({ itemId: item.id, locationId: at.id, lot: source.lot });
    });
    if (location?.status === 'archived') throw new ArchivedError('location', location.code);
    if (bom) await this.checkOutput(organizationId, bom, input.outputLot, refuse);
    if (errors.length > 0 || !bom || !location) throw new ValidationError(errors, 'The build names what it cannot use; see `errors`.');

    const at = (ports.clock?.() ?? new Date()).toISOString();
    const build = queuedBuild(
      {
        organizationId,
        buildReference: input.buildReference,
        bomId: bom.id,
        revision: { id: bom.revision.id, number: bom.revision.number },
        quantity: input.quantity,
        locationId: location.id,
        outputLot: input.outputLot,
        sources,
        submittedBy,
      },
      at,
    );
    return {
      writes: ports.builds.createWrites(organizationId, build),
      events: [],
      audit: {
        kind: 'build.submitted',
        target: { kind: 'build', id: build.id },
        summary: `Build submitted: ${build.buildReference} (${build.quantity} of BOM ${bom.code})`,
        changes: [],
      },
      result: build,
    };
  }

  private async bomOf(organizationId: string, input: BuildInput): Promise<Bom | undefined> {
    if (input.bomId !== undefined) return (await this.ports.boms.get(organizationId, input.bomId))?.bom;
    return (await this.ports.boms.getByCodes(organizationId, [input.bomCode ?? ''])).get(input.bomCode ?? '')?.record;
  }

  /** The output's lot as its target item's tracking asks; a target no longer an item refuses the build. */
  private async checkOutput(
    organizationId: string,
    bom: Bom,
    outputLot: string | null,
    refuse: (pointer: string, code: string, message: string) => void,
  ): Promise<void> {
    const target = (
      await this.ports.references(organizationId, { skus: [], itemIds: [bom.targetItemId], codes: [], locationIds: [], claimKeys: [] })
    ).itemsById.get(bom.targetItemId);
    if (!target) return refuse('/bomId', 'bom-not-buildable', `The target item of BOM "${bom.code}" is no longer an item of the organization.`);
    // An archived target takes no output (docs/inventory.md "Writing the catalog"): refused before anything is reserved.
    if (target.status === 'archived') throw new ArchivedError('item', target.sku);
    if (target.trackingMode === 'lot' && outputLot === null)
      return refuse('/outputLot', 'lot-required', `The output "${target.sku}" is tracked by lot: outputLot is required.`);
    if (target.trackingMode !== 'lot' && outputLot !== null)
      return refuse('/outputLot', 'lot-not-allowed', `The output "${target.sku}" is not tracked by lot: leave outputLot out.`);
  }
}
