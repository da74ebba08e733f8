import { sweepExpiredReservations } from '../lib/reservations/domain/expiry-sweep.ts';
import { ReserveCommand } from '../lib/reservations/domain/reserve.ts';
import { SettleReservationCommand } from '../lib/reservations/domain/settle.ts';
import type { RequestCounter } from '../local/dynamodb-requests.ts';
import { ReservationExpiryStore } from '../lib/reservations/store/reservation-expiry-store.ts';
import { reservationPorts } from '../lib/reservations/store/reservation-ports.ts';
import { TABLES } from '../lib/platform/storage/tables.ts';
import { TransactionWriter } from '../lib/platform/dynamo/transaction-writer.ts';

/**
 * The reservation expiry sweep's cost per expired reservation (docs/performance.md
 * "Reservations"): `count` reservations of one line each, created as of an hour ago with an
 * `expiresAt` already past, then one sweep as the scheduled worker runs it (the expiry index, then
 * one transaction each), timed, its DynamoDB requests counted. The sweep reads only this
 * organization's due reservations, so other suites' are left alone.
 */
export async function measureExpirySweep(options: {
  organizationId: string;
  sku: string;
  locationCode: string;
  count: number;
  counter: RequestCounter;
}): Promise<{ msPerReservation: number; requestsPerReservation: number; expired: number }> {
  const [table, events, audit] = [TABLES.inventory, TABLES.events, TABLES.audit].map((spec) => process.env[spec.envVar]);
  if (!table || !events || !audit) throw new Error('No tables: the bench stack is not running');
  const transactionWriter = new TransactionWriter({ events, audit });
  const { organizationId, count, counter } = options;
  const actor = { type: 'system' as const, id: 'bench-reservation-expiry' };
  const anHourAgo = new Date(Date.now() - 60 * 60 * 1000);
  const reserve = new ReserveCommand({ ...reservationPorts(table), clock: () => anHourAgo });
  for (let index = 0; index < count; index += 1) {
    const input = {
      reference: `EXPIRY-${index}-${Date.now()}`,
      expiresAt: new Date(anHourAgo.getTime() + 60_000).toISOString(),
      lines: [{ sku: options.sku, locationCode: options.locationCode, lot: null, quantity: 1 }],
    };
    await transactionWriter.run({ organizationId, actor, traceId: null }, () => reserve.create(organizationId, input));
  }
  const expiries = new ReservationExpiryStore(table);
  const settle = new SettleReservationCommand(reservationPorts(table));
  counter.reset();
  const started = performance.now();
  const swept = await sweepExpiredReservations({
    due: async (now, limit) => (await expiries.due(now, limit)).filter((due) => due.organizationId === organizationId),
    expire: async ({ id }) => {
      await transactionWriter.run({ organizationId, actor, traceId: null }, () => settle.settle(organizationId, id, 'expire', undefined));
    },
    onError: (_due, error) => {
      throw error;
    },
  });
  const ms = performance.now() - started;
  if (swept.expired !== count) throw new Error(`The sweep expired ${swept.expired} of ${count} reservations`);
  return { msPerReservation: ms / count, requestsPerReservation: counter.requests.length / count, expired: swept.expired };
}
