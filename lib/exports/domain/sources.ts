import type { AuditLogStore } from '../../audit/index.ts';
import type { AuditKind } from '../../platform/audit/types.ts';
import type { InventoryReadStorage } from '../../inventory/index.ts';
import { availableOf } from '../../inventory/index.ts';
import type { ExportRow } from './format.ts';
import type { ExportFilters, ExportJobState } from './job.ts';
import type { ExportColumn } from './kinds.ts';
import { filteredReservationRows, reservationsAtSnapshot, type ReservationExports } from './reservation-rows.ts';
import { SnapshotRollback, type SnapshotEvents } from './snapshot.ts';

/**
 * Where each kind's rows come from: a source pages its records from a position (the last sort
 * key read, opaque here) with bounded memory, and turns them into rows of the kind's columns
 * (lib/exports/domain/kinds.ts). The worker checkpoints the position after each part.
 */

export interface ExportPage {
  rows: ExportRow[];
  /** Position after this page; absent when the page read nothing. */
  last?: string;
  more: boolean;
}

export interface ExportSource {
  /** Columns before the kind's declared ones (import-row-errors: the job's file columns). */
  leadingColumns?: readonly ExportColumn[];
  page(after: string | undefined, limit: number): Promise<ExportPage>;
}

export interface BomExportLines {
  /** The current revision of each BOM as the `boms` import's rows, from a position on. */
  page(organizationId: string, filter: { bomCode?: string }, after: string | undefined, limit: number): Promise<ExportPage>;
}

export interface ImportRowErrorExports {
  /** The job's failed rows, or undefined when the organization has no such job. */
  open(organizationId: string, importJobId: string): Promise<ExportSource | undefined>;
}

export interface ExportSourcePorts {
  inventory: InventoryReadStorage;
  audit: AuditLogStore;
  events: SnapshotEvents;
  boms: BomExportLines;
  importRowErrors: ImportRowErrorExports;
  reservations: ReservationExports;
}

const EMPTY: ExportSource = { page: async () => ({ rows: [], more: false }) };

const text = (filters: ExportFilters, name: string): string | undefined => (typeof filters[name] === 'string' ? (filters[name] as string) : undefined);

export class ExportSourceUnavailable extends Error {
  override name = 'ExportSourceUnavailable';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class ExportSources {
  constructor(private readonly ports: ExportSourcePorts) {}

  /** Ids of the records the natural-key filters name; `null` when one names nothing (the export is empty). */
  private async resolve(organizationId: string, filters: ExportFilters): Promise<{ itemId?: string; locationId?: string } | null> {
    const sku = text(filters, 'sku');
    const code = text(filters, 'locationCode');
    const resolved: { itemId?: string; locationId?: string } = {};
    if (sku !== undefined) {
      const [item] = (await this.ports.inventory.items(organizationId, { sku }, undefined, 1)).items;
      if (!item) return null;
      resolved.itemId = item.id;
    }
    if (code !== undefined) {
      const [location] = (await this.ports.inventory.locations(organizationId, { code }, undefined, 1)).items;
      if (!location) return null;
      resolved.locationId = location.id;
    }
    return resolved;
  }

  async open(job: ExportJobState, asOfSequence: number): Promise<ExportSource> {
    const { organizationId, filters } = job;
    const { inventory, events } = this.ports;
    switch (job.kind) {
      case 'items': {
        // One roll-back for the source's life (one invocation): the events after S are read once.
        const rollback = new SnapshotRollback(events, organizationId, asOfSequence);
        return {
          page: async (after, limit) => {
            const page = await inventory.items(organizationId, { sku: text(filters, 'sku') }, after, limit);
            await rollback.catchUp();
            const items = rollback.items(page.items);
            const rows = items.map(({ sku, name, unit, description, category, barcode, reorderPoint, trackingMode }) => ({
              sku,
              name,
              unit,
              description,
              category,
              barcode,
              reorderPoint,
              trackingMode,
            }));
            return { rows, ...(page.last === undefined ? {} : { last: page.last }), more: page.more };
          },
        };
      }
      case 'locations':
        return {
          page: async (after, limit) => {
            const page = await inventory.locations(organizationId, { code: text(filters, 'code') }, after, limit);
            const rows = page.items.map(({ code, name, type, parentCode }) => ({ code, name, type, parentCode }));
            return { rows, ...(page.last === undefined ? {} : { last: page.last }), more: page.more };
          },
        };
      case 'stock-records': {
        const ids = await this.resolve(organizationId, filters);
        if (ids === null) return EMPTY;
        const nonZero = filters.nonZero === true;
        const rollback = new SnapshotRollback(events, organizationId, asOfSequence);
        return {
          page: async (after, limit) => {
            // nonZero is applied to the quantity at S, after the roll-back, not to the live one.
            const page = await inventory.stockRecords(organizationId, ids, after, limit);
            await rollback.catchUp();
            const atSnapshot = rollback.stock(page.items);
            const rows = atSnapshot
              .filter(({ quantity }) => !nonZero || quantity !== 0)
              .map(({ record, quantity, reserved, updatedAt }) => ({
                stockRecordId: record.id,
                itemId: record.itemId,
                sku: record.sku,
                locationId: record.locationId,
                locationCode: record.locationCode,
                lot: record.lot,
                quantity,
                updatedAt,
                reserved,
                available: availableOf({ onHand: quantity, reserved }),
              }));
            return { rows, ...(page.last === undefined ? {} : { last: page.last }), more: page.more };
          },
        };
      }
      case 'reservations': {
        const ids = await this.resolve(organizationId, filters);
        if (ids === null) return EMPTY;
        const filter = { ...ids, status: text(filters, 'status'), reference: text(filters, 'reference') };
        const rollback = new SnapshotRollback(events, organizationId, asOfSequence);
        return {
          page: async (after, limit) => {
            // The filters apply to each reservation as it was at S, after the roll-back, not to the live one.
            const page = await this.ports.reservations.page(organizationId, after, limit);
            await rollback.catchUp();
            const rows = filteredReservationRows(await reservationsAtSnapshot(this.ports.reservations, organizationId, rollback, page.items), filter);
            return { rows, ...(page.last === undefined ? {} : { last: page.last }), more: page.more };
          },
        };
      }
      case 'movements': {
        const ids = await this.resolve(organizationId, filters);
        if (ids === null) return EMPTY;
        const range = { fromUtc: text(filters, 'fromUtc'), toUtc: text(filters, 'toUtc') };
        return {
          page: async (after, limit) => {
            const page = await inventory.movements(organizationId, { ...ids, ...range }, after, limit);
            const rows = page.items.map((movement) => ({
              movementId: movement.id,
              type: movement.type,
              itemId: movement.itemId,
              sku: movement.sku,
              fromLocationId: movement.fromLocationId,
              toLocationId: movement.toLocationId,
              quantity: movement.quantity,
              lot: movement.lot,
              reference: movement.reference,
              occurredAt: movement.occurredAt,
            }));
            return { rows, ...(page.last === undefined ? {} : { last: page.last }), more: page.more };
          },
        };
      }
      case 'audit-events': {
        const kind = text(filters, 'kind') as AuditKind | undefined;
        const from = text(filters, 'fromUtc');
        const to = text(filters, 'toUtc');
        return {
          page: async (after, limit) => {
            const page = await this.ports.audit.list(organizationId, {
              limit,
              ...(kind ? { kind } : {}),
              ...(from ? { from } : {}),
              ...(to ? { to } : {}),
              ...(after ? { before: after } : {}),
            });
            const rows = page.events.map((event) => ({
              id: event.id,
              occurredAt: event.occurredAt,
              kind: event.kind,
              actorType: event.actor.type,
              actorId: event.actor.id,
              targetKind: event.target.kind,
              targetId: event.target.id,
              summary: event.summary,
              changes: JSON.stringify(event.changes),
              traceId: event.traceId,
              idempotencyKey: event.idempotencyKey,
            }));
            return { rows, ...(page.last === undefined ? {} : { last: page.last }), more: page.more };
          },
        };
      }
      case 'boms': {
        const bomCode = text(filters, 'bomCode');
        return { page: (after, limit) => this.ports.boms.page(organizationId, bomCode === undefined ? {} : { bomCode }, after, limit) };
      }
      case 'import-row-errors': {
        const source = await this.ports.importRowErrors.open(organizationId, text(filters, 'importJobId') ?? '');
        if (!source) throw new ExportSourceUnavailable('unknown-import-job', `There is no import job '${text(filters, 'importJobId')}'.`);
        return source;
      }
      default:
        throw new ExportSourceUnavailable('unknown-kind', `There is no export kind '${job.kind}'.`);
    }
  }
}
