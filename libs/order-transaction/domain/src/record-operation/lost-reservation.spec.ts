import { defaultMerchantSettings, GatewayError, RecordOperationMessage } from '@gateway/contracts';
import type { LedgerRepository, LedgerWrite, SeenOrder, TransactionRow } from '@gateway/order-transaction/data-access';
import { PastDeadlineError, type AppLogger } from '@gateway/platform';
import type { LedgerEvents } from '../ledger-events/ledger-events';
import { reservationFound } from './lost-reservation';
import { parseRecordInput } from './record-input';
import { RecordOperation, RecordStep } from './record-operation.use-case';

const AT = new Date('2030-01-01T01:00:00.000Z');
/** What node-pg throws when the connection drops under a statement: it may have committed. */
const LOST = (): Error => new Error('Connection terminated unexpectedly');

/** The PENDING reservation of REFUND r1 of 30.00 on order o1, under fencing token 7 and request hash h-r1. */
function reservation(overrides: Partial<RecordOperationMessage> = {}): RecordOperationMessage {
  return {
    envelope: {
      merchant: { id: 'M1', mode: 'TEST', settings: defaultMerchantSettings() },
      apiVersion: 100,
      requestId: 'req-1',
      authMethod: 'PASSWORD',
      fencingToken: '7',
    },
    orderId: 'o1',
    transactionId: 'r1',
    apiOperation: 'REFUND',
    requestHash: 'h-r1',
    mode: 'CREATE',
    order: { currency: 'USD' },
    transaction: { type: 'REFUND', amount: '30.00', currency: 'USD', result: 'PENDING', gatewayCode: 'PENDING' },
    response: {},
    ...overrides,
  };
}

function row(transactionId: string, apiOperation: string, type: TransactionRow['type'], amount: string, result: TransactionRow['result'], gatewayCode: string): TransactionRow {
  const sequence = transactionId === 'p1' ? 1 : 2;
  return { transactionId, sequence, apiOperation, type, amount, currency: 'USD', result, gatewayCode, targetTransactionId: null, fundingType: 'CARD', taxAmount: null, createdAt: AT, updatedAt: AT };
}

const PAYMENT = row('p1', 'PAY', 'PAYMENT', '100.0000', 'SUCCESS', 'APPROVED');
const RESERVED_REFUND = row('r1', 'REFUND', 'REFUND', '30.0000', 'PENDING', 'PENDING');

/** Order o1 (paid 100.00) as read for REFUND r1: `r1` its refund as a row, `hash` the response stored for it, `token` the order's newest fencing token. */
function orderRead({ r1, hash, token }: { r1?: TransactionRow; hash?: string; token: string }): SeenOrder {
  return {
    order: {
      merchantId: 'M1',
      orderId: 'o1',
      currency: 'USD',
      amount: '100.0000',
      status: r1 ? 'PARTIALLY_REFUNDED' : 'CAPTURED',
      totalAuthorizedAmount: '100.0000',
      totalCapturedAmount: '100.0000',
      totalRefundedAmount: r1 ? '30.0000' : '0',
      details: {},
      notificationUrl: null,
      lastFencingToken: token,
      operationCount: r1 ? 2 : 1,
      createdAt: AT,
      updatedAt: AT,
    },
    contents: {
      transactions: r1 ? [PAYMENT, r1] : [PAYMENT],
      stored: hash ? { requestHash: hash, body: { result: 'PENDING', response: { gatewayCode: 'PENDING' } } } : null,
    },
    version: r1 ? '902' : '901',
    operation: { transactionId: 'r1', apiOperation: 'REFUND' },
  };
}

const OWN = orderRead({ r1: RESERVED_REFUND, hash: 'h-r1', token: '7' });

describe('reservationFound: what the order read again holds after a reservation whose answer was lost', () => {
  const input = parseRecordInput(reservation());

  it("is this request's own reservation: its PENDING transaction, stored under its request hash, with its fencing token the order's newest", () => {
    expect(reservationFound(OWN, input)).toEqual({ found: 'OWN', seen: OWN, body: OWN.contents.stored?.body });
  });

  it('is none when the order does not exist or has no transaction with the id: the write rolled back', () => {
    expect(reservationFound(null, input)).toEqual({ found: 'NONE' });
    expect(reservationFound(orderRead({ token: '6' }), input)).toEqual({ found: 'NONE' });
  });

  it("is another's when the id holds another request, a newer lease, another operation, or an outcome", () => {
    const others = [
      // The same id reserved by a request with another body.
      orderRead({ r1: RESERVED_REFUND, hash: 'h-other', token: '7' }),
      // This very request reserved it under a newer lease (the merchant's retry racing without the lock), or reserved and then lost its lease.
      orderRead({ r1: RESERVED_REFUND, hash: 'h-r1', token: '8' }),
      // Another operation's transaction: nothing stored for REFUND r1.
      orderRead({ r1: row('r1', 'CAPTURE', 'CAPTURE', '30.0000', 'PENDING', 'PENDING'), token: '7' }),
      // No longer a reservation: completed.
      orderRead({ r1: { ...RESERVED_REFUND, result: 'SUCCESS', gatewayCode: 'APPROVED' }, hash: 'h-r1', token: '7' }),
      // Its result or its gateway code alone not the reservation's.
      orderRead({ r1: { ...RESERVED_REFUND, result: 'UNKNOWN' }, hash: 'h-r1', token: '7' }),
      orderRead({ r1: { ...RESERVED_REFUND, gatewayCode: 'SUBMITTED' }, hash: 'h-r1', token: '7' }),
    ];
    for (const seen of others) {
      expect(reservationFound(seen, input)).toEqual({ found: 'ANOTHER', seen });
    }
  });
});

/** RecordOperation over a ledger whose reservation write fails with `failure` and whose read answers `reads` in turn. */
function ledgerLosing(failure: () => Error, ...reads: (SeenOrder | null | Error)[]) {
  const written: LedgerWrite[] = [];
  const read = jest.fn(async () => {
    const next = reads.shift();
    if (next instanceof Error) {
      throw next;
    }
    return next ?? null;
  });
  const writeFails = async (write: LedgerWrite) => {
    written.push(write);
    throw failure();
  };
  const ledger = {
    findForBegin: read,
    autocommitWriter: () => ({ insertNewOrder: writeFails, applyToOrderIfUnchanged: writeFails }),
    transaction: () => Promise.reject(new Error('no locked way in these tests')),
  } as unknown as LedgerRepository;
  const events = { announces: () => false } as unknown as LedgerEvents;
  const warned: unknown[] = [];
  const logger = { warn: (fields: unknown) => warned.push(fields) } as unknown as AppLogger;
  return { records: new RecordOperation(ledger, events, {} as never, logger), written, read, warned };
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
}

describe("RecordOperation: a reservation whose write's answer was lost with its connection", () => {
  const BEGIN = orderRead({ token: '6' });

  it('carries on from its own reservation, found on the order read again: the view the completion writes on', async () => {
    const { records, written, read, warned } = ledgerLosing(LOST, OWN);
    const reserved = await records.execute(reservation(), 'RESERVE', BEGIN);
    expect(written).toHaveLength(1);
    expect(read).toHaveBeenCalledWith('M1', 'o1', 'r1', 'REFUND');
    expect(reserved).toEqual({ body: OWN.contents.stored?.body, replayed: false, written: OWN });
    expect(warned).toEqual([expect.objectContaining({ orderId: 'o1', transactionId: 'r1', found: 'OWN' })]);
  });

  it("carries on from a new order's reservation (a PAY's insert) the same way", async () => {
    const pay = reservation({
      transactionId: 'p1',
      apiOperation: 'PAY',
      requestHash: 'h-p1',
      newOrder: true,
      transaction: { type: 'PAYMENT', amount: '12.00', currency: 'USD', result: 'PENDING', gatewayCode: 'PENDING', fundingType: 'CARD' },
    });
    const own: SeenOrder = {
      ...OWN,
      contents: { transactions: [row('p1', 'PAY', 'PAYMENT', '12.0000', 'PENDING', 'PENDING')], stored: { requestHash: 'h-p1', body: { result: 'PENDING' } } },
      operation: { transactionId: 'p1', apiOperation: 'PAY' },
    };
    const { records } = ledgerLosing(LOST, own);
    expect(await records.execute(pay, 'RESERVE', null)).toEqual({ body: { result: 'PENDING' }, replayed: false, written: own });
  });

  it('answers the lost connection when no reservation is there (it rolled back), or when the order cannot be read again', async () => {
    for (const reread of [orderRead({ token: '6' }), new Error('Connection terminated unexpectedly')]) {
      const failure = LOST();
      const { records } = ledgerLosing(() => failure, reread);
      expect(await rejectionOf(records.execute(reservation(), 'RESERVE', BEGIN))).toBe(failure);
    }
  });

  it("decides another request's reservation as a reservation is decided: a replay of the same body, else its refusal", async () => {
    const retry = orderRead({ r1: RESERVED_REFUND, hash: 'h-r1', token: '7' });
    // The same request under the same lease is its own; under a newer one, this lease has lapsed.
    const newerLease = { ...retry, order: { ...retry.order, lastFencingToken: '8' } };
    expect(await rejectionOf(ledgerLosing(LOST, newerLease).records.execute(reservation(), 'RESERVE', BEGIN))).toMatchObject({ code: 'ORDER_LOCK_LOST' });
    // Another body under the id.
    const otherBody = orderRead({ r1: RESERVED_REFUND, hash: 'h-other', token: '7' });
    const refused = await rejectionOf(ledgerLosing(LOST, otherBody).records.execute(reservation(), 'RESERVE', BEGIN));
    expect(refused).toBeInstanceOf(GatewayError);
    expect(refused).toMatchObject({ httpStatus: 400 });
    // Completed meanwhile under this request's hash: the stored body is replayed.
    const completed = orderRead({ r1: { ...RESERVED_REFUND, result: 'SUCCESS', gatewayCode: 'APPROVED' }, hash: 'h-r1', token: '7' });
    expect(await ledgerLosing(LOST, completed).records.execute(reservation(), 'RESERVE', BEGIN)).toEqual({
      body: completed.contents.stored?.body,
      replayed: true,
    });
  });

  it('reads nothing again after a failure that cannot have committed, or for a record that is not a reservation', async () => {
    const cases: { failure: () => Error; step: RecordStep }[] = [
      // Never connected: nothing was sent.
      { failure: () => new Error('timeout exceeded when trying to connect'), step: 'RESERVE' },
      { failure: () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }), step: 'RESERVE' },
      // A constraint or a serialization failure rolled back for certain.
      { failure: () => Object.assign(new Error('could not serialize access'), { code: '40001' }), step: 'RESERVE' },
      // Other steps keep their own handling (a completion retries and finds what landed).
      { failure: LOST, step: 'RECORD' },
    ];
    for (const { failure, step } of cases) {
      const { records, read } = ledgerLosing(failure, OWN);
      await expect(records.execute(reservation(), step, BEGIN)).rejects.toThrow();
      expect(read).not.toHaveBeenCalled();
    }
  });
});

/**
 * RecordOperation over a ledger whose every connection comes only once the deadline has passed
 * (the pool's queue under overload): a record given that deadline must write nothing, on
 * whichever way it would write. Any write or lock fails the test with its own error.
 */
describe('RecordOperation: a record given a deadline that passes while it waits for its connection', () => {
  function ledgerPastDeadline(seen: SeenOrder | null, announces: boolean) {
    const touched: string[] = [];
    const refuse = (what: string) => async () => {
      touched.push(what);
      throw new Error(`${what} past the deadline`);
    };
    const writer = {
      lockOrder: refuse('lockOrder'),
      insertNewOrder: refuse('insertNewOrder'),
      applyToOrderIfUnchanged: refuse('applyToOrderIfUnchanged'),
      applyToOrder: refuse('applyToOrder'),
      manager: {},
    };
    const ledger = {
      findForBegin: async () => seen,
      onConnection: async (connected: () => void, work: (w: typeof writer) => Promise<unknown>) => {
        connected();
        return work(writer);
      },
      transaction: async (work: (w: typeof writer) => Promise<unknown>) => work(writer),
      autocommitWriter: () => writer,
    } as unknown as LedgerRepository;
    const events = { announces: () => announces, orderRecorded: async () => undefined } as unknown as LedgerEvents;
    const logger = { warn: () => undefined } as unknown as AppLogger;
    return { records: new RecordOperation(ledger, events, { add: async () => undefined } as never, logger), touched };
  }

  const past = () => Date.now() - 1;

  it('on a seen order, written with the notification it announces (one transaction)', async () => {
    const { records, touched } = ledgerPastDeadline(null, true);
    const approval = reservation({ notificationUrl: 'https://merchant.example/hooks' } as Partial<RecordOperationMessage>);
    const settings = { ...defaultMerchantSettings(), notifications: { ...defaultMerchantSettings().notifications, enabled: true } };
    const message = { ...approval, envelope: { ...approval.envelope, merchant: { ...approval.envelope.merchant, settings } } };
    expect(await rejectionOf(records.execute(message, 'RECORD', orderRead({ token: '6' }), past()))).toBeInstanceOf(PastDeadlineError);
    expect(touched).toEqual([]);
  });

  it('on a seen order, written by one statement on a connection held from the check on', async () => {
    const { records, touched } = ledgerPastDeadline(null, false);
    expect(await rejectionOf(records.execute(reservation(), 'RESERVE', orderRead({ token: '6' }), past()))).toBeInstanceOf(PastDeadlineError);
    expect(touched).toEqual([]);
  });

  it('is never given for a completion, which records what was begun whatever the time', async () => {
    const { records, touched } = ledgerPastDeadline(null, false);
    await expect(records.execute(reservation({ mode: 'UPDATE' }), 'COMPLETE', OWN, past())).rejects.toThrow('a completion is never refused for time');
    expect(touched).toEqual([]);
  });

  it('with no order seen, the locked way', async () => {
    const { records, touched } = ledgerPastDeadline(null, false);
    expect(await rejectionOf(records.execute(reservation(), 'RESERVE', null, past()))).toBeInstanceOf(PastDeadlineError);
    expect(touched).toEqual([]);
  });
});
