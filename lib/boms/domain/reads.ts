import { NotFoundError } from '../../platform/core/errors.ts';
import type { CursorBinding, CursorCodec } from '../../platform/pagination/cursor.ts';
import { cursorPage, type ListPage } from '../../platform/pagination/page.ts';
import { compareContents, type ContentComparison } from './compare.ts';
import type { Bom, BomListFilter, BomRevision, BomRevisionListing, BomStorage, BomSummary, BuildProvenance, PageOf } from './records.ts';

/** Reads of the BOM area (docs/boms.md): one BOM, lists, revisions, comparisons, builds. */

type Page<T> = ListPage<T>;

export interface RevisionComparison extends ContentComparison {
  bomId: string;
  from: { id: string; number: number };
  to: { id: string; number: number };
}

type Storage = Pick<BomStorage, 'get' | 'list' | 'revisions' | 'revision' | 'builds'>;

export class BomReads {
  /** `cursors` is needed only by the lists. */
  constructor(
    private readonly boms: Storage,
    private readonly cursors?: CursorCodec,
  ) {}

  async get(organizationId: string, bomId: string): Promise<{ bom: Bom; version: number }> {
    const found = await this.boms.get(organizationId, bomId);
    if (!found) throw new NotFoundError('boms', 'No BOM with this id.');
    return found;
  }

  async list(organizationId: string, filter: BomListFilter, query: { limit: number; cursor?: string }): Promise<Page<BomSummary>> {
    const binding = { organizationId, endpoint: 'GET /v1/boms', filters: { ...filter } };
    return this.paged(binding, query, (after) => this.boms.list(organizationId, filter, after, query.limit));
  }

  async revisions(organizationId: string, bomId: string, query: { limit: number; cursor?: string }): Promise<Page<BomRevisionListing>> {
    await this.get(organizationId, bomId);
    const binding = { organizationId, endpoint: `GET /v1/boms/${bomId}/revisions`, filters: {} };
    return this.paged(binding, query, (after) => this.boms.revisions(organizationId, bomId, after, query.limit));
  }

  /** A revision of this BOM; a revision of another BOM is as unknown as a made-up id. */
  async revision(organizationId: string, bomId: string, revisionId: string): Promise<BomRevision> {
    await this.get(organizationId, bomId);
    const revision = await this.boms.revision(organizationId, bomId, revisionId);
    if (!revision) throw new NotFoundError('boms', 'No revision with this id for this BOM.');
    return revision;
  }

  async compare(organizationId: string, bomId: string, fromRevisionId: string, toRevisionId: string): Promise<RevisionComparison> {
    const [from, to] = await Promise.all([this.revision(organizationId, bomId, fromRevisionId), this.revision(organizationId, bomId, toRevisionId)]);
    return { bomId, from: { id: from.id, number: from.number }, to: { id: to.id, number: to.number }, ...compareContents(from.content, to.content) };
  }

  async builds(organizationId: string, bomId: string, sourceStockRecordId: string, query: { limit: number; cursor?: string }): Promise<Page<BuildProvenance>> {
    await this.get(organizationId, bomId);
    const binding = { organizationId, endpoint: `GET /v1/boms/${bomId}/builds`, filters: { sourceStockRecordId } };
    return this.paged(binding, query, (after) => this.boms.builds(organizationId, bomId, sourceStockRecordId, after, query.limit));
  }

  private paged<T>(binding: CursorBinding, query: { cursor?: string }, read: (after: string | undefined) => Promise<PageOf<T>>): Promise<Page<T>> {
    if (!this.cursors) throw new Error('Paging BOM lists needs a cursor codec');
    return cursorPage(this.cursors, binding, query.cursor, read);
  }
}
