import { describe, expect, it } from 'vitest';
import type { ImportRecords } from '../../lib/imports/domain/kind-definition.ts';
import type { CommandWriter } from '../../lib/platform/write/ports.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { uniqueOrganization } from '../support/api.ts';
import { transactionWriter } from '../support/events.ts';
import { feedOf, itemsOf, locationsOf, runImportInProcess, watchedImportRecords } from '../support/imports.ts';
import { stockAt } from '../support/stock.ts';

/**
 * The import worker reads the next chunk's records while the current chunk commits
 * (docs/architecture.md "The import pipeline"): the reads start during a transaction, and what
 * the job stores is exactly what reading one after the other would store, also when rows later
 * in the file touch the records an earlier chunk is committing.
 */

const csv = (...lines: string[]) => lines.join('\n') + '\n';

const runJob = (organizationId: string, kind: string, file: string, ports: { records?: ImportRecords<StoreWrite>; writer?: CommandWriter<StoreWrite> } = {}) =>
  runImportInProcess(organizationId, kind, file, ports);

describe('reading ahead while a chunk commits', () => {
  it('overlaps the next reads with the commit and stores exactly what the rows say: 400 adjustments cycling over 30 items', async () => {
    // Prepare: 30 items with 1,000 each at A1; rows that come back to every item many times
    const organizationId = uniqueOrganization();
    const skus = Array.from({ length: 30 }, (_, index) => `OV-${index}`);
    await runJob(organizationId, 'items', csv('sku,name', ...skus.map((sku) => `${sku},${sku}`)));
    await runJob(organizationId, 'locations', csv('code,name', 'A1,Bin A1'));
    await runJob(organizationId, 'po-receipts', csv('poNumber,sku,locationCode,quantity', ...skus.map((sku) => `PO-1,${sku},A1,1000`)));
    const rows = Array.from({ length: 400 }, (_, row) => `ADJ-${row},${skus[row % skus.length]},A1,-${(row % 3) + 1}`);
    const writer = transactionWriter();
    let committing = 0;
    let readsDuringCommit = 0;
    // Counted when a read starts: one that starts while a transaction is in flight overlaps it.
    const records = watchedImportRecords({ beforeRead: () => void (readsDuringCommit += committing > 0 ? 1 : 0) });
    const countingWriter: CommandWriter<StoreWrite> = {
      async run(context, build, respond) {
        committing += 1;
        try {
          return await writer.run(context, build, respond);
        } finally {
          committing -= 1;
        }
      },
    };

    // Act
    const job = await runJob(organizationId, 'stock-adjustments', csv('reference,sku,locationCode,quantityDelta', ...rows), {
      records,
      writer: countingWriter,
    });

    // Assess: reads ran during commits, and every record holds exactly what the rows took
    expect(readsDuringCommit).toBeGreaterThan(0);
    expect(job.counts).toMatchObject({ created: 400, failed: 0 });
    const items = await itemsOf(organizationId, skus);
    const a1 = (await locationsOf(organizationId, ['A1'])).get('A1')?.record.id ?? '';
    for (const [index, sku] of skus.entries()) {
      const taken = rows.filter((_, row) => row % skus.length === index).reduce((sum, _, at) => sum + (((index + at * skus.length) % 3) + 1), 0);
      expect((await stockAt(organizationId, items.get(sku)?.record.id ?? '', a1, null)).onHand, sku).toBe(1000 - taken);
    }
    const changed = (await feedOf(organizationId)).filter((event) => event.type === 'stock.changed');
    expect(changed.length).toBe(30 + 400);
  });
});
