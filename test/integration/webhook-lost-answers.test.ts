import { afterEach, describe, expect, it } from 'vitest';
import { newTask } from '../../lib/webhooks/domain/dispatch.ts';
import { dynamoClient } from '../../lib/platform/aws/dynamodb-client.ts';
import { WebhookDeliveriesStore } from '../../lib/webhooks/store/webhook-deliveries-store.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName } from '../support/events.ts';

/**
 * The delivery store's single-item writes when DynamoDB applies a write but its answer is lost and
 * the SDK sends it again (docs/webhooks.md "Guarantees"): the retry fails its condition against
 * the write that landed, and the store knows that write for its own. A middleware inside the
 * SDK's retry loses the answer of the first matching request once, with a transient error.
 */

const MIDDLEWARE = 'loseOneAnswer';
const deliveries = () => new WebhookDeliveriesStore(tableName('inventory'));

function loseAnswerOnce(matches: (input: Record<string, unknown>) => boolean): { lost: () => boolean } {
  let lost = false;
  dynamoClient.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      if (!lost && matches(args.input as Record<string, unknown>)) {
        lost = true;
        throw Object.assign(new Error('socket hang up after the write was applied'), { name: 'TimeoutError', $metadata: {} });
      }
      return result;
    },
    // Inside the retry middleware (same step, higher priority): the SDK sends the request again.
    { step: 'finalizeRequest', name: MIDDLEWARE },
  );
  return { lost: () => lost };
}

afterEach(() => {
  dynamoClient.middlewareStack.remove(MIDDLEWARE);
});

const updateStarting = (prefix: string) => (input: Record<string, unknown>) =>
  typeof input.UpdateExpression === 'string' && input.UpdateExpression.startsWith(prefix);
/** A batched statement (lib/platform/dynamo/batch-statements.ts) that sets `attribute`. */
const batchedSetting = (attribute: string) => (input: Record<string, unknown>) =>
  Array.isArray(input.Statements) && (input.Statements as { Statement: string }[]).some(({ Statement }) => Statement.includes(`SET "${attribute}" = ?`));

async function pendingTask() {
  const organizationId = uniqueOrganization();
  const task = newTask({ organizationId, sequence: 1, eventId: 'evt_lost1', type: 'item.created', committedAt: new Date().toISOString() }, 'whe_lost', 'live');
  expect((await deliveries().createTask(task)).created).toBe(true);
  return task;
}

const attemptOne = () => ({ attemptId: `wha_lost${Date.now()}${Math.random().toString(36).slice(2, 8)}`, number: 1, startedAt: new Date().toISOString() });

describe('delivery store, an answer lost after the write landed', () => {
  it('a claim whose retry finds it already made is the claim', async () => {
    const task = await pendingTask();
    const attempt = attemptOne();
    const loss = loseAnswerOnce(updateStarting('SET #task.#attempts'));
    const claim = await deliveries().claimAttempt(task, attempt);
    expect(loss.lost()).toBe(true);
    expect(claim).toMatchObject({ claimed: true, task: { attempts: 1, inFlight: { attemptId: attempt.attemptId } } });
    // Another worker's claim of the same attempt is still refused.
    expect((await deliveries().claimAttempt(task, attemptOne())).claimed).toBe(false);
  });

  it('a settle whose outcome write is retried goes on to the task', async () => {
    const task = await pendingTask();
    const attempt = attemptOne();
    const claim = await deliveries().claimAttempt(task, attempt);
    if (!claim.claimed) throw new Error('not claimed');
    await deliveries().recordPending(claim.task, attempt);
    const loss = loseAnswerOnce(batchedSetting('settleId'));
    const settled = await deliveries().settleAttempt(
      claim.task,
      attempt,
      { status: 'succeeded', responseStatus: 204, durationMs: 5, error: null, nextAttemptAt: null },
      { status: 'succeeded', nextAttemptAt: null },
    );
    expect(loss.lost()).toBe(true);
    expect(settled).toBe(true);
    expect(await deliveries().getTask(task)).toMatchObject({ status: 'succeeded', inFlight: null });
    expect(await deliveries().attemptOf(task, attempt.attemptId)).toMatchObject({ status: 'succeeded', responseStatus: 204 });
    // A second settle of the attempt (an interrupted settle elsewhere) changes nothing.
    expect(
      await deliveries().settleAttempt(
        claim.task,
        attempt,
        { status: 'failed', responseStatus: null, durationMs: null, error: 'interrupted', nextAttemptAt: null },
        { status: 'failed', nextAttemptAt: null },
      ),
    ).toBe(false);
    expect(await deliveries().attemptOf(task, attempt.attemptId)).toMatchObject({ status: 'succeeded' });
  });

  it("a settle whose task write is retried reports the task settled, so the failed attempt's retry is queued", async () => {
    const task = await pendingTask();
    const attempt = attemptOne();
    const claim = await deliveries().claimAttempt(task, attempt);
    if (!claim.claimed) throw new Error('not claimed');
    const nextAttemptAt = new Date(Date.now() + 5000).toISOString();
    const loss = loseAnswerOnce(batchedSetting('finishId'));
    const settled = await deliveries().settleAttempt(
      claim.task,
      attempt,
      { status: 'failed', responseStatus: 500, durationMs: 5, error: 'HTTP 500', nextAttemptAt },
      { status: 'pending', nextAttemptAt },
    );
    expect(loss.lost()).toBe(true);
    expect(settled).toBe(true);
    expect(await deliveries().getTask(task)).toMatchObject({ status: 'pending', attempts: 1, inFlight: null, nextAttemptAt });
    // Another settler asking for the same state afterwards (an interrupted settle applying the recorded outcome) is not told it wrote it: one of them queues the retry.
    expect(await deliveries().finishTask(claim.task, attempt.attemptId, { status: 'pending', nextAttemptAt })).toBe(false);
  });
});

describe('delivery store, who settles an attempt', () => {
  it("the claimant's success stands over a successor's 'interrupted' settle, in the log and on the task: the successor's retry finds the task ended", async () => {
    const task = await pendingTask();
    // Claimed 95 s ago: a successor takes an attempt for interrupted only once it is stale.
    const attempt = { ...attemptOne(), startedAt: new Date(Date.now() - 95_000).toISOString() };
    const claim = await deliveries().claimAttempt(task, attempt);
    if (!claim.claimed) throw new Error('not claimed');
    await deliveries().recordPending(claim.task, attempt);
    // Another worker took the attempt for interrupted and scheduled the next one.
    const retryAt = new Date(Date.now() + 60_000).toISOString();
    expect(
      await deliveries().settleAttempt(
        claim.task,
        attempt,
        { status: 'failed', responseStatus: null, durationMs: null, error: 'interrupted', nextAttemptAt: retryAt },
        { status: 'pending', nextAttemptAt: retryAt },
        'successor',
      ),
    ).toBe(true);
    // The claimant was only slow: what it sent is the truth of the attempt.
    expect(
      await deliveries().settleAttempt(
        claim.task,
        attempt,
        { status: 'succeeded', responseStatus: 204, durationMs: 95_000, error: null, nextAttemptAt: null },
        { status: 'succeeded', nextAttemptAt: null },
        'claimant',
      ),
    ).toBe(true);
    expect(await deliveries().attemptOf(task, attempt.attemptId)).toMatchObject({ status: 'succeeded', responseStatus: 204 });
    expect(await deliveries().getTask(task)).toMatchObject({ status: 'succeeded', attempts: 1, inFlight: null, nextAttemptAt: null });
    // The successor's retry message: its claim is refused, nothing is sent again.
    expect((await deliveries().claimAttempt(task, { attemptId: `${attempt.attemptId}_2`, number: 2, startedAt: new Date().toISOString() })).claimed).toBe(
      false,
    );
  });

  it("the claimant's failure that schedules a retry does not overwrite a successor's settle: its task write is refused, so one retry is queued", async () => {
    const task = await pendingTask();
    const attempt = attemptOne();
    const claim = await deliveries().claimAttempt(task, attempt);
    if (!claim.claimed) throw new Error('not claimed');
    const retryAt = new Date(Date.now() + 60_000).toISOString();
    expect(
      await deliveries().settleAttempt(
        claim.task,
        attempt,
        { status: 'failed', responseStatus: null, durationMs: null, error: 'interrupted', nextAttemptAt: retryAt },
        { status: 'pending', nextAttemptAt: retryAt },
        'successor',
      ),
    ).toBe(true);
    const laterRetry = new Date(Date.now() + 90_000).toISOString();
    expect(
      await deliveries().settleAttempt(
        claim.task,
        attempt,
        { status: 'failed', responseStatus: 500, durationMs: 95_000, error: 'HTTP 500', nextAttemptAt: laterRetry },
        { status: 'pending', nextAttemptAt: laterRetry },
        'claimant',
      ),
    ).toBe(false);
    expect(await deliveries().attemptOf(task, attempt.attemptId)).toMatchObject({ status: 'failed', responseStatus: 500 });
    expect(await deliveries().getTask(task)).toMatchObject({ status: 'pending', inFlight: null, nextAttemptAt: retryAt });
  });

  it('a live delivery has no task before its first claim: the claim creates it from the event the message names, and a copy of the claim is refused', async () => {
    const task = newTask(
      { organizationId: uniqueOrganization(), sequence: 9, eventId: 'evt_live', type: 'item.created', committedAt: new Date().toISOString() },
      'whe_live',
      'live',
    );
    expect(await deliveries().getTask(task)).toBeUndefined();
    const attempt = attemptOne();
    const claim = await deliveries().claimAttempt(task, attempt, task);
    expect(claim).toMatchObject({ claimed: true, task: { eventId: 'evt_live', attempts: 1, status: 'pending', inFlight: { attemptId: attempt.attemptId } } });
    if (!claim.claimed) throw new Error('not claimed');
    // The SDK's re-send of that very claim finds it its own; another worker's copy is refused.
    expect((await deliveries().claimAttempt(task, attempt, task)).claimed).toBe(true);
    expect(await deliveries().claimAttempt(task, { ...attempt, attemptId: `${attempt.attemptId}_copy` }, task)).toMatchObject({
      claimed: false,
      task: { inFlight: { attemptId: attempt.attemptId } },
    });
    expect(
      await deliveries().settleAttempt(
        claim.task,
        attempt,
        { status: 'succeeded', responseStatus: 204, durationMs: 5, error: null, nextAttemptAt: null },
        { status: 'succeeded', nextAttemptAt: null },
        'claimant',
      ),
    ).toBe(true);
    expect((await deliveries().claimAttempt(task, { ...attempt, attemptId: `${attempt.attemptId}_late` }, task)).claimed).toBe(false);
    expect(await deliveries().getTask(task)).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it("a successor never overwrites the claimant's outcome", async () => {
    const task = await pendingTask();
    const attempt = attemptOne();
    const claim = await deliveries().claimAttempt(task, attempt);
    if (!claim.claimed) throw new Error('not claimed');
    expect(
      await deliveries().settleAttempt(
        claim.task,
        attempt,
        { status: 'succeeded', responseStatus: 204, durationMs: 5, error: null, nextAttemptAt: null },
        { status: 'succeeded', nextAttemptAt: null },
        'claimant',
      ),
    ).toBe(true);
    expect(
      await deliveries().settleAttempt(
        claim.task,
        attempt,
        { status: 'failed', responseStatus: null, durationMs: null, error: 'interrupted', nextAttemptAt: null },
        { status: 'failed', nextAttemptAt: null },
        'successor',
      ),
    ).toBe(false);
    expect(await deliveries().attemptOf(task, attempt.attemptId)).toMatchObject({ status: 'succeeded' });
    expect(await deliveries().getTask(task)).toMatchObject({ status: 'succeeded' });
  });
});
