import type { CursorBinding, CursorCodec } from '../../platform/pagination/cursor.ts';
import { cursorPage, type ListPage } from '../../platform/pagination/page.ts';
import { webhookEndpointNotFound, type WebhookEndpoint } from './endpoint.ts';
import type { DeliveryAttempt, DeliveryStorage, EndpointStorage } from './ports.ts';

/** Reads of the webhooks area (docs/webhooks.md): endpoints (never a secret) and delivery logs. */
export class WebhookReads {
  constructor(
    private readonly ports: { endpoints: Pick<EndpointStorage, 'get' | 'page'>; deliveries?: Pick<DeliveryStorage, 'attemptsPage'> },
    private readonly cursors?: CursorCodec,
  ) {}

  async get(organizationId: string, endpointId: string): Promise<WebhookEndpoint> {
    const stored = await this.ports.endpoints.get(organizationId, endpointId);
    if (!stored) throw webhookEndpointNotFound();
    return stored.endpoint;
  }

  async list(organizationId: string, query: { limit: number; cursor?: string }): Promise<ListPage<WebhookEndpoint>> {
    const binding: CursorBinding = { organizationId, endpoint: 'GET /v1/webhooks/endpoints', filters: {} };
    const page = await cursorPage(this.codec(), binding, query.cursor, (after) => this.ports.endpoints.page(organizationId, after, query.limit));
    return { data: page.data.map((stored) => stored.endpoint), page: page.page };
  }

  /** An endpoint's attempts, newest first; `eventId` and `status` filter. */
  async deliveries(
    organizationId: string,
    endpointId: string,
    query: { limit: number; cursor?: string; eventId?: string; status?: string },
  ): Promise<ListPage<DeliveryAttempt>> {
    await this.get(organizationId, endpointId);
    const { deliveries } = this.ports;
    if (!deliveries) throw new Error('The delivery log needs its store');
    const filter = { ...(query.eventId === undefined ? {} : { eventId: query.eventId }), ...(query.status === undefined ? {} : { status: query.status }) };
    const binding: CursorBinding = { organizationId, endpoint: `GET /v1/webhooks/endpoints/${endpointId}/deliveries`, filters: filter };
    return cursorPage(this.codec(), binding, query.cursor, (after) => deliveries.attemptsPage(organizationId, endpointId, filter, after, query.limit));
  }

  private codec(): CursorCodec {
    if (!this.cursors) throw new Error('Paging needs a cursor codec');
    return this.cursors;
  }
}
