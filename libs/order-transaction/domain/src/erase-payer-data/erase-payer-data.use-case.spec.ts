import type { JsonObject } from '@gateway/contracts';
import type {
  OutboxNotification,
  PayerDataRecords,
  PayerDataRepository,
  StoredBody,
} from '@gateway/order-transaction/data-access';
import type { AppLogger } from '@gateway/platform';
import { ErasePayerData } from './erase-payer-data.use-case';

/**
 * ErasePayerData over a fake ledger whose transactions can be aborted as Postgres aborts them:
 * the failure is thrown by the order's first notification write (where a deferral or a purge
 * meets the erasure), after the order's row and responses were written in that transaction, and
 * nothing of that transaction is kept. What runs again and what is given up on: the SQL's own
 * deadlock, with a real second session, is payer-data.int-spec.ts.
 */
describe('ErasePayerData, when the database aborts its transaction', () => {
  const COMMAND = { merchantId: 'M1', orderId: 'o-1', dryRun: false };

  /** A Postgres error as node-pg raises it (TypeORM copies `code` onto its QueryFailedError). */
  function pgError(code: string, message: string): Error & { code: string } {
    return Object.assign(new Error(message), { code, severity: 'ERROR' });
  }
  const deadlock = () => pgError('40P01', 'deadlock detected');

  /**
   * A ledger holding one order with a payer's data in its details, a stored response and a
   * pending notification; `failures[i]` (when given) aborts the i-th transaction at its
   * notification write. Only a transaction that returns is committed. `deliveryInFlight`: a
   * dispatcher worker holds the order's notification (holdNotifications answers false).
   */
  function ledger(failures: (Error | undefined)[], { deliveryInFlight = false } = {}) {
    const committed = {
      details: { reference: 'ref-7', customer: { email: 'zelda@example.org' } } as JsonObject,
      responses: [
        {
          transactionId: 'p1',
          apiOperation: 'PAY',
          body: { result: 'SUCCESS', customer: { email: 'zelda@example.org' } },
        },
      ] as StoredBody[],
      notifications: [
        {
          id: 'n-1',
          url: 'https://merchant.example/hooks',
          payload: { result: 'SUCCESS', customer: { firstName: 'Zelda' } },
        },
      ] as OutboxNotification[],
    };
    let transactions = 0;
    let marks = 0;
    const repository = {
      async transaction<T>(work: (records: PayerDataRecords) => Promise<T>): Promise<T> {
        const failure = failures[transactions];
        transactions += 1;
        const written = {
          ...committed,
          responses: [...committed.responses],
          notifications: [...committed.notifications],
        };
        const records: Partial<PayerDataRecords> = {
          order: async () => ({
            details: committed.details,
            notificationUrl: 'https://merchant.example/hooks',
            updatedAt: new Date('2026-11-27T10:00:00Z'),
          }),
          responses: async () => committed.responses,
          agreements: async () => [],
          announcements: async () => [],
          notifications: async () => committed.notifications,
          holdNotifications: async () => !deliveryInFlight,
          writeOrder: async (_merchantId, _orderId, details) => {
            written.details = details;
          },
          writeResponse: async (_merchantId, _orderId, response) => {
            written.responses = written.responses.map((r) =>
              r.transactionId === response.transactionId ? response : r,
            );
          },
          writeNotification: async (notification) => {
            if (failure) {
              throw failure;
            }
            written.notifications = written.notifications.map((n) =>
              n.id === notification.id ? notification : n,
            );
          },
          eraseAgreementData: async () => undefined,
          markStripped: async () => {
            marks += 1;
          },
        };
        // Rolled back on a throw: nothing of `written` is kept.
        const result = await work(records as PayerDataRecords);
        Object.assign(committed, written);
        return result;
      },
    };
    const warnings: unknown[][] = [];
    const logger = {
      info: () => undefined,
      warn: (...args: unknown[]) => warnings.push(args),
    } as unknown as AppLogger;
    return {
      erasure: new ErasePayerData(repository as unknown as PayerDataRepository, logger),
      committed,
      transactions: () => transactions,
      marks: () => marks,
      warnings,
    };
  }

  it.each([
    ['a deadlock victim (40P01)', deadlock],
    [
      'a serialization failure (40001)',
      () => pgError('40001', 'could not serialize access due to concurrent update'),
    ],
  ])('runs the transaction again after %s, and erases the order', async (_, failure) => {
    const { erasure, committed, transactions, warnings } = ledger([failure()]);
    const erased = await erasure.execute(COMMAND);
    expect(erased).toEqual({
      merchantId: 'M1',
      orderId: 'o-1',
      status: 'ERASED',
      details: true,
      notificationUrl: false,
      responses: 1,
      notifications: 1,
      agreements: 0,
    });
    expect(transactions()).toBe(2);
    expect(JSON.stringify(committed)).not.toMatch(/zelda/i);
    // Said once, by ids and SQLSTATE: never the error's detail or the order's data.
    expect(warnings).toHaveLength(1);
    expect(warnings[0][0]).toEqual({
      merchantId: 'M1',
      orderId: 'o-1',
      attempt: 1,
      sqlState: failure().code,
    });
  });

  it("gives up after three transactions aborted in a row, with the database's error, nothing written", async () => {
    const errors = [deadlock(), deadlock(), deadlock(), deadlock()];
    const { erasure, committed, transactions } = ledger(errors);
    const before = JSON.stringify(committed);
    const started = Date.now();
    await expect(erasure.execute(COMMAND)).rejects.toBe(errors[2]);
    expect(transactions()).toBe(3);
    expect(JSON.stringify(committed)).toBe(before);
    // Two pauses of 20-100 ms: no long back-off for an operator's command.
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it.each([
    ['a statement timeout (57014)', () => pgError('57014', 'canceling statement due to statement timeout')],
    ['a lock not available (55P03)', () => pgError('55P03', 'could not obtain lock on row')],
    ['an error without a SQLSTATE', () => new Error('something else')],
  ])('does not run the transaction again after %s', async (_, failure) => {
    const error = failure();
    const { erasure, transactions, warnings } = ledger([error]);
    await expect(erasure.execute(COMMAND)).rejects.toBe(error);
    expect(transactions()).toBe(1);
    expect(warnings).toEqual([]);
  });

  it('run by the retention, does not wait for a webhook delivery of the order in flight: the order fails at once, nothing written, not marked', async () => {
    const { erasure, committed, transactions, marks } = ledger([], { deliveryInFlight: true });
    const before = JSON.stringify(committed);
    const started = Date.now();
    // The erasure on request tries again for up to 65 s; a run of the retention would stall that long per order.
    await expect(erasure.execute({ ...COMMAND, retention: { idleBefore: new Date('2026-11-28T00:00:00Z') } })).rejects.toThrow(
      'M1/o-1: a webhook notification of the order is being delivered: nothing changed; the next retention run does it',
    );
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(transactions()).toBe(1);
    expect(JSON.stringify(committed)).toBe(before);
    expect(marks()).toBe(0);
  });

  it('does not run the transaction again after another error that follows a deadlock', async () => {
    const timeout = pgError('57014', 'canceling statement due to statement timeout');
    const { erasure, transactions } = ledger([deadlock(), timeout]);
    await expect(erasure.execute(COMMAND)).rejects.toBe(timeout);
    expect(transactions()).toBe(2);
  });
});
