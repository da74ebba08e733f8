import type { PageOf } from '../../platform/pagination/page.ts';
import type { DeliveryAttempt } from '../domain/ports.ts';
import { readPageInOneQuery, sortKeyRange, type ItemFilter } from '../../platform/dynamo/entity.ts';
import { WEBHOOK_ATTEMPT_PREFIX, webhookAttemptsOf } from './entities.ts';

/**
 * Reads of an endpoint's delivery log (docs/webhooks.md "Delivery"), apart from the delivery
 * store's writes so the list route carries none of them.
 */

/** A filtered page of the delivery log examines at most this many entries. */
export const DELIVERY_LOG_PAGE_BUDGET = 1000;

export class WebhookDeliveryLog {
  constructor(private readonly tableName: string) {}

  async attemptsPage(
    organizationId: string,
    endpointId: string,
    filter: { eventId?: string; status?: string },
    after: string | undefined,
    limit: number,
  ): Promise<PageOf<DeliveryAttempt>> {
    const conditions: string[] = [];
    const itemFilter: ItemFilter = { expression: '', names: {}, values: {} };
    if (filter.eventId !== undefined) {
      conditions.push('#eventId = :eventId');
      itemFilter.names['#eventId'] = 'eventId';
      itemFilter.values[':eventId'] = filter.eventId;
    }
    if (filter.status !== undefined) {
      conditions.push('#status = :status');
      itemFilter.names['#status'] = 'status';
      itemFilter.values[':status'] = filter.status;
    }
    itemFilter.expression = conditions.join(' AND ');
    const page = await readPageInOneQuery({
      tableName: this.tableName,
      partition: { name: 'pk', value: webhookAttemptsOf(organizationId, endpointId) },
      sortKey: { name: 'sk', ...sortKeyRange(WEBHOOK_ATTEMPT_PREFIX) },
      after,
      limit,
      newestFirst: true,
      ...(conditions.length > 0 ? { filter: itemFilter, budget: DELIVERY_LOG_PAGE_BUDGET } : { budget: limit + 1 }),
    });
    return { items: page.items.map(toAttempt), last: page.last, more: page.more };
  }
}

export function toAttempt(item: Record<string, unknown>): DeliveryAttempt {
  return {
    id: item.id as string,
    eventId: item.eventId as string,
    eventType: item.eventType as string,
    attempt: item.attempt as number,
    status: item.status as DeliveryAttempt['status'],
    responseStatus: (item.responseStatus as number | null) ?? null,
    durationMs: (item.durationMs as number | null) ?? null,
    error: (item.error as string | null) ?? null,
    attemptedAt: item.attemptedAt as string,
    nextAttemptAt: (item.nextAttemptAt as string | null) ?? null,
  };
}
