import { randomBytes } from 'node:crypto';
import { MerchantContext, OperationReply, SUBJECTS } from '@gateway/contracts';
import { NotDeliveredError } from '@gateway/platform';
import { waitFor } from '@gateway/testing';
import type { Pool, PoolClient } from 'pg';
import { LedgerTestApp, newOrderId, rejection, startLedgerTestApp, statementsOf, testMerchant } from './testing/ledger-test-app';

/**
 * Order retrieval's deadline (docs/decisions/operation-deadline.md, amendment on reads): the
 * ledger reads nothing for a GET the edge has stopped waiting for, and answers it as the in-flight
 * cap's refusal (not acted on), which the edge answers 503 with the plain explanation.
 */
let app: LedgerTestApp;

beforeAll(async () => {
  app = await startLedgerTestApp();
}, 60_000);

afterAll(async () => {
  await app?.running.shutdown('tests done');
});

const envelope = (merchant: MerchantContext) => ({
  merchant,
  apiVersion: 100,
  requestId: `req-${randomBytes(4).toString('hex')}`,
  authMethod: 'PASSWORD' as const,
});

const reads = [
  ['an order', SUBJECTS.orderTransaction.retrieveOrder, {}],
  ['a transaction', SUBJECTS.orderTransaction.retrieveTransaction, { transactionId: 't-1' }],
] as const;

async function refusedPastDeadline(subject: string): Promise<number> {
  const metric = await app.metrics.messagesPastDeadline.get();
  return metric.values.filter((v) => v.labels.subject === subject).reduce((sum, v) => sum + v.value, 0);
}

describe("a retrieval's deadline", () => {
  it.each(reads)('refuses, unprocessed and without reading, the retrieval of %s past its deadline', async (_what, subject, extra) => {
    const merchant = testMerchant();
    const message = { envelope: envelope(merchant), orderId: newOrderId(), ...extra, deadline: Date.now() - 1 };
    const refused = await refusedPastDeadline(subject);

    let late: unknown;
    const statements = await statementsOf(async () => {
      late = await rejection(app.bus.request<OperationReply>(subject, message));
    });
    expect(late).toBeInstanceOf(NotDeliveredError);
    expect(late).toMatchObject({ code: 'SERVER_BUSY', retryAfterSeconds: 1 });
    expect(statements).toEqual([]);
    expect(await refusedPastDeadline(subject)).toBe(refused + 1);
  });

  it.each(reads)('answers the retrieval of %s in time, and one without a deadline (an edge of the release before)', async (_what, subject, extra) => {
    const merchant = testMerchant();
    const message = { envelope: envelope(merchant), orderId: newOrderId(), ...extra };
    await expect(app.bus.request(subject, { ...message, deadline: Date.now() + 60_000 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(app.bus.request(subject, message)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it.each(reads)('refuses the retrieval of %s whose read gets its database connection only after the deadline', async (_what, subject, extra) => {
    const merchant = testMerchant();
    const pool = (app.dataSource.driver as unknown as { master: Pool }).master;
    // Every connection held, as an overload's backlog holds them: the read, in time when it
    // begins, waits in the pool's queue until past its deadline.
    const clients: PoolClient[] = await Promise.all(Array.from({ length: pool.options.max ?? 10 }, () => pool.connect()));
    const deadline = Date.now() + 1_000;
    let released = false;
    const release = () => {
      if (!released) {
        released = true;
        clients.forEach((client) => client.release());
      }
    };
    try {
      const answer = rejection(
        app.bus.request<OperationReply>(subject, { envelope: envelope(merchant), orderId: newOrderId(), ...extra, deadline }, { timeoutMs: 30_000 }),
      );
      await waitFor(async () => pool.waitingCount > 0 && Date.now() > deadline, { timeoutMs: 10_000, what: 'the read waiting for its connection past its deadline' });
      release();
      expect(await answer).toBeInstanceOf(NotDeliveredError);
    } finally {
      release();
    }
  });
});
