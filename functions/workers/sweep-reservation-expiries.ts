import type { Context } from 'aws-lambda';
import { transactionWriter } from '../../lib/app/composition-writes.ts';
import { requiredEnv } from '../../lib/platform/config/env.ts';
import { sweepExpiredReservations } from '../../lib/reservations/domain/expiry-sweep.ts';
import { SettleReservationCommand } from '../../lib/reservations/domain/settle.ts';
import { decideAgainOnLostRace } from '../../lib/stock/domain/changes/commit.ts';
import { describeError, log, startInvocation } from '../../lib/platform/observability/log.ts';
import { ReservationExpiryStore } from '../../lib/reservations/store/reservation-expiry-store.ts';
import { reservationPorts } from '../../lib/reservations/store/reservation-ports.ts';
import { TABLES } from '../../lib/platform/storage/tables.ts';

/**
 * The reservation expiry sweep, every minute (docs/inventory.md "Reservations and available
 * stock"): what an expired reservation has left goes back to available, and an operation a
 * request left half way is finished.
 */

const table = requiredEnv(TABLES.inventory.envVar);
const expiries = new ReservationExpiryStore(table);
const command = new SettleReservationCommand(reservationPorts(table));
const ACTOR = { type: 'system' as const, id: 'reservation-expiry' };
/** Time kept back from the invocation's for the page in progress. */
const SAFETY_MS = 5_000;

export const handler = async (_event?: unknown, context?: Context): Promise<void> => {
  startInvocation(context);
  const remaining = context?.getRemainingTimeInMillis?.();
  const runOf = (organizationId: string) => ({ writer: transactionWriter, context: { organizationId, actor: ACTOR, traceId: null }, requestKey: null });
  const swept = await sweepExpiredReservations({
    due: (now, limit) => expiries.due(now, limit),
    expire: ({ organizationId, id }) =>
      decideAgainOnLostRace(async () => {
        await transactionWriter.run({ organizationId, actor: ACTOR, traceId: null }, () =>
          command.settle(organizationId, id, 'expire', undefined, runOf(organizationId)),
        );
      }),
    finishPending: ({ organizationId, id }) => command.finishPending(organizationId, id, runOf(organizationId)),
    onError: (reservation, error) => log('warn', 'reservation not expired this time', { ...reservation, error: describeError(error) }),
    ...(remaining === undefined ? {} : { deadline: Date.now() + remaining - SAFETY_MS }),
  });
  if (swept.expired > 0 || swept.finished > 0 || swept.errors > 0) log('info', 'reservations expired', { ...swept });
};
