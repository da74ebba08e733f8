import { describe, expect, it } from 'vitest';
import type { Bom } from '../../lib/boms/domain/records.ts';
import type { ImportRecords } from '../../lib/imports/domain/kind-definition.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { uniqueOrganization } from '../support/api.ts';
import { bomsStore } from '../support/boms.ts';
import { transactionWriter } from '../support/events.ts';
import { importJobsStore, importRecords, itemsOf, locationsOf, runImportInProcess, watchedImportRecords } from '../support/imports.ts';
import { stockAt } from '../support/stock.ts';

/**
 * A build conditions its commit on the BOM it was decided on (docs/inventory.md "builds"): when
 * the BOM is revised or archived after the job read it and before the build commits, the build
 * is decided again on the BOM as it is now: built from the new revision, or refused as archived.
 */

const csv = (...lines: string[]) => lines.join('\n') + '\n';

/** The import records, with `interfere` run once, right after the job has read its BOMs. */
const recordsInterferingAfterBomLoad = (interfere: () => Promise<void>) =>
  watchedImportRecords({ afterRead: (entity, count) => (entity === 'bom' && count === 1 ? interfere() : undefined) });

const runJob = (organizationId: string, kind: string, file: string, records?: ImportRecords<StoreWrite>) =>
  runImportInProcess(organizationId, kind, file, { duplicateStrategy: 'update', ...(records ? { records } : {}) });

async function organizationWithKitBom() {
  const organizationId = uniqueOrganization();
  await runJob(organizationId, 'items', csv('sku,name', 'KIT,Kit', 'NUT,Nut', 'BOLT,Bolt'));
  await runJob(organizationId, 'locations', csv('code,name', 'A1,Bin A1'));
  await runJob(organizationId, 'po-receipts', csv('poNumber,sku,locationCode,quantity', 'PO-1,NUT,A1,100', 'PO-1,BOLT,A1,100'));
  await runJob(organizationId, 'boms', csv('bomCode,name,targetSku,componentSku,quantity', 'KIT-BOM,Kit,KIT,NUT,2'));
  const items = await itemsOf(organizationId, ['KIT', 'NUT', 'BOLT']);
  const a1 = (await locationsOf(organizationId, ['A1'])).get('A1')?.record.id ?? '';
  const id = (sku: string) => items.get(sku)?.record.id ?? '';
  return { organizationId, a1, kit: id('KIT'), nut: id('NUT'), bolt: id('BOLT') };
}

async function storedBom(organizationId: string): Promise<{ bom: Bom; version: number }> {
  const found = (await importRecords().getByNaturalKeys(organizationId, 'bom', ['KIT-BOM'])).get('KIT-BOM');
  const stored = found && (await bomsStore().get(organizationId, (found.record as Bom).id));
  if (!stored) throw new Error('KIT-BOM is missing');
  return stored;
}

describe('a build whose BOM changes between the job reading it and the build committing', () => {
  it('is built from the revision that is current at commit: revised from NUT×2 to BOLT×3, it consumes 3 BOLT per kit and names revision 2', async () => {
    // Prepare
    const org = await organizationWithKitBom();
    const revise = () =>
      runJob(org.organizationId, 'boms', csv('bomCode,name,targetSku,componentSku,quantity', 'KIT-BOM,Kit,KIT,BOLT,3')).then(() => undefined);

    // Act: the BOM is revised right after the build job read it
    const job = await runJob(
      org.organizationId,
      'builds',
      csv('buildReference,bomCode,quantity,locationCode', 'B-1,KIT-BOM,5,A1'),
      recordsInterferingAfterBomLoad(revise),
    );
    const { bom } = await storedBom(org.organizationId);
    const builds = await bomsStore().builds(org.organizationId, bom.id, (await stockAt(org.organizationId, org.bolt, org.a1, null)).id, undefined, 10);

    // Assess: the new revision was built, the old one's component untouched
    expect(bom.revision.number).toBe(2);
    expect(job.counts).toMatchObject({ created: 1, failed: 0 });
    expect((await stockAt(org.organizationId, org.bolt, org.a1, null)).onHand).toBe(85);
    expect((await stockAt(org.organizationId, org.nut, org.a1, null)).onHand).toBe(100);
    expect((await stockAt(org.organizationId, org.kit, org.a1, null)).onHand).toBe(5);
    expect(builds.items.map((build) => build.revision.number)).toEqual([2]);
  });

  it('is refused (invalid-value on bomCode) when the BOM is archived in between, and moves nothing', async () => {
    // Prepare
    const org = await organizationWithKitBom();
    const archive = async () => {
      const { bom, version } = await storedBom(org.organizationId);
      const archived = { ...bom, archived: true };
      await transactionWriter().run({ organizationId: org.organizationId, actor: { type: 'system', id: 'bom-tests' }, traceId: null }, async () => ({
        writes: bomsStore().updateWrites(org.organizationId, archived, version, undefined),
        events: [],
        result: undefined,
      }));
    };

    // Act
    const job = await runJob(
      org.organizationId,
      'builds',
      csv('buildReference,bomCode,quantity,locationCode', 'B-1,KIT-BOM,5,A1'),
      recordsInterferingAfterBomLoad(archive),
    );
    const errors = await importJobsStore().listRowErrors(org.organizationId, job.id, undefined, 10);

    // Assess
    expect(job.counts).toMatchObject({ created: 0, failed: 1 });
    expect(errors.errors.map((error) => [error.rowNumber, error.column, error.code])).toEqual([[1, 'bomCode', 'invalid-value']]);
    expect((await stockAt(org.organizationId, org.nut, org.a1, null)).onHand).toBe(100);
  });
});
