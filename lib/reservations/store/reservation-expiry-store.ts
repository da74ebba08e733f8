import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { DueReservation } from '../domain/expiry-sweep.ts';
import type { Reservation } from '../domain/reservation.ts';
import { documentClient } from '../../platform/aws/dynamodb-client.ts';
import { RESERVATION_EXPIRY_INDEX, RESERVATION_EXPIRY_SHARDS, reservationExpiryShard } from './entities.ts';

/**
 * The expiry sweep's read (docs/inventory.md "Reservations and available stock"): one Query per
 * shard of the expiry index (gsi1), `gsi1sk < now`, a bounded page each, never a Scan. The index
 * is eventually consistent: a reservation settled a moment ago may still be listed, and the sweep's
 * transaction, over the version it reads itself, finds it no longer active. A reservation with an
 * operation in progress is listed from a while after it began (lib/reservations/domain/pending.ts),
 * with its `expiresAt`, so the sweep tells the two apart.
 */
export class ReservationExpiryStore {
  constructor(private readonly tableName: string) {}

  async due(now: Date, limit: number): Promise<DueReservation[]> {
    const perShard = Math.max(1, Math.ceil(limit / RESERVATION_EXPIRY_SHARDS));
    const pages = await Promise.all(
      Array.from({ length: RESERVATION_EXPIRY_SHARDS }, (_, shard) =>
        documentClient.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: RESERVATION_EXPIRY_INDEX,
            KeyConditionExpression: 'gsi1pk = :shard AND gsi1sk < :now',
            ExpressionAttributeValues: { ':shard': reservationExpiryShard(shard), ':now': now.toISOString() },
            Limit: perShard,
          }),
        ),
      ),
    );
    return pages
      .flatMap((page) => page.Items ?? [])
      .sort((a, b) => String(a.gsi1sk).localeCompare(String(b.gsi1sk)))
      .slice(0, limit)
      .map((item) => ({
        organizationId: item.organizationId as string,
        id: (item.reservation as Reservation).id,
        expiresAt: (item.reservation as Reservation).expiresAt,
      }));
  }
}
