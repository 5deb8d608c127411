import type { LedgerRepository, LockedOrder, UnknownInquiries, UnknownInquiryKey } from '@gateway/order-transaction/data-access';
import { AppLogger, Metrics } from '@gateway/platform';
import type { EntityManager } from 'typeorm';
import type { LedgerEvents, OutcomeLearnedEvent } from '../ledger-events/ledger-events';
import type { DecidedRecord, RecordedOperation, RecordOperation } from '../record-operation/record-operation.use-case';
import { ResolveUnknown, ResolveUnknownCommand, UNKNOWN_RESOLUTIONS_METRIC } from './resolve-unknown.use-case';

const MANAGER = {} as EntityManager;
const AT = new Date('2030-01-01T01:00:00.000Z');

/** Order o1 with its PAY p1 as `result`, read for PAY. */
function view(result: 'UNKNOWN' | 'SUCCESS'): LockedOrder {
  return {
    order: {
      merchantId: 'M1',
      orderId: 'o1',
      currency: 'USD',
      amount: '12.0000',
      status: result === 'SUCCESS' ? 'CAPTURED' : 'INITIATED',
      totalAuthorizedAmount: '0',
      totalCapturedAmount: '0',
      totalRefundedAmount: '0',
      details: {},
      notificationUrl: 'https://merchant.example/hooks',
      lastFencingToken: '5',
      operationCount: 2,
      createdAt: AT,
      updatedAt: AT,
    },
    contents: {
      transactions: [
        {
          transactionId: 'p1',
          sequence: 1,
          apiOperation: 'PAY',
          type: 'PAYMENT',
          amount: '12.0000',
          currency: 'USD',
          result,
          gatewayCode: result === 'SUCCESS' ? 'APPROVED' : 'UNKNOWN',
          targetTransactionId: null,
          fundingType: 'CARD',
          taxAmount: null,
          createdAt: AT,
          updatedAt: AT,
        },
      ],
      stored: {
        requestHash: 'h',
        body: { result, response: { gatewayCode: result === 'SUCCESS' ? 'APPROVED' : 'UNKNOWN' }, transaction: { acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC9999990101' } } },
      },
    },
  };
}

interface Bed {
  resolve: ResolveUnknown;
  decided: DecidedRecord[];
  announced: OutcomeLearnedEvent[];
  dequeued: UnknownInquiryKey[];
  logged: { fields: Record<string, unknown>; message: string }[];
  counted: () => Promise<Record<string, number>>;
}

/** The use case over a ledger whose order is `order`, recording as RecordOperation does: decide, then write and announce. */
function bed(order: LockedOrder, announces = true): Bed {
  const metrics = new Metrics();
  const decided: DecidedRecord[] = [];
  const announced: OutcomeLearnedEvent[] = [];
  const dequeued: UnknownInquiryKey[] = [];
  const inquiries = {
    remove: async (key: UnknownInquiryKey, manager: EntityManager) => {
      expect(manager).toBe(MANAGER);
      dequeued.push(key);
    },
  } as unknown as UnknownInquiries;
  const logged: Bed['logged'] = [];
  const ledger = {
    openTransactionOf: async (_m: string, _o: string, t: string) => (t === 'p1' ? { apiOperation: 'PAY', announcement: KEPT } : null),
  } as unknown as LedgerRepository;
  const records = {
    recordDecided: async (record: DecidedRecord): Promise<RecordedOperation> => {
      decided.push(record);
      const decision = record.decide(order, AT);
      if ('replay' in decision) {
        return { body: decision.replay, replayed: true };
      }
      await decision.alongside?.(MANAGER);
      return { body: decision.body, replayed: false };
    },
  } as unknown as RecordOperation;
  const events: LedgerEvents = {
    announces: () => true,
    orderRecorded: async () => undefined,
    outcomeLearned: async (_manager, event) => {
      announced.push(event);
      return announces;
    },
  };
  const logger = { info: (fields: Record<string, unknown>, message: string) => logged.push({ fields, message }) } as unknown as AppLogger;
  const counted = async () => {
    const values = (await metrics.registry.getSingleMetric(UNKNOWN_RESOLUTIONS_METRIC)!.get()).values;
    return Object.fromEntries(values.map((v) => [`${v.labels.source}:${v.labels.outcome}`, v.value]));
  };
  return { resolve: new ResolveUnknown(ledger, records, events, inquiries, logger, metrics), decided, announced, dequeued, logged, counted };
}

/** What the transaction kept for its notification (RecordOperation.keptAnnouncement). */
const KEPT = { url: 'https://merchant.example/pay-hooks', merchantMode: 'TEST', sealedSecret: 'sealed' } as const;

const COMMAND: ResolveUnknownCommand = {
  merchantId: 'M1',
  orderId: 'o1',
  transactionId: 'p1',
  source: 'OPERATOR',
  learned: { gatewayCode: 'APPROVED', acquirerTransactionId: 'MCC1234560101', authorizationCode: '654321' },
};

describe('ResolveUnknown', () => {
  it('records the learned outcome on the view of the transaction\'s creating operation, announces it, dequeues its inquiry, logs and counts it', async () => {
    const { resolve, decided, announced, dequeued, logged, counted } = bed(view('UNKNOWN'));
    const resolved = await resolve.execute(COMMAND);
    expect(resolved).toMatchObject({ status: 'RESOLVED', notified: true, body: { result: 'SUCCESS', order: { status: 'CAPTURED' } } });
    expect(decided.map((d) => [d.merchantId, d.orderId, d.transactionId, d.apiOperation])).toEqual([['M1', 'o1', 'p1', 'PAY']]);
    expect(announced).toEqual([
      {
        merchantId: 'M1',
        orderId: 'o1',
        transactionId: 'p1',
        apiOperation: 'PAY',
        notificationUrl: 'https://merchant.example/hooks',
        body: resolved.body,
        recordedAt: AT,
        // What the transaction kept for its notification while its outcome was open.
        reserved: KEPT,
      },
    ]);
    // In the record's database transaction, as the announcement: nothing is left to ask the acquirer.
    expect(dequeued).toEqual([{ merchantId: 'M1', orderId: 'o1', transactionId: 'p1' }]);
    expect(logged).toEqual([
      {
        fields: {
          merchantId: 'M1',
          orderId: 'o1',
          transactionId: 'p1',
          apiOperation: 'PAY',
          source: 'OPERATOR',
          gatewayCode: 'APPROVED',
          acquirerTransactionId: 'MCC1234560101',
          orderStatus: 'CAPTURED',
          notified: true,
        },
        message: expect.stringContaining('resolved'),
      },
    ]);
    expect(await counted()).toEqual({ 'OPERATOR:APPROVED': 1 });
  });

  it('says when no notification was written (the UNKNOWN outcome was not announced)', async () => {
    const { resolve } = bed(view('UNKNOWN'), false);
    expect(await resolve.execute({ ...COMMAND, source: 'INQUIRY', learned: { gatewayCode: 'DECLINED' } })).toMatchObject({ status: 'RESOLVED', notified: false });
  });

  it('answers UNCHANGED for an outcome already recorded: nothing announced, nothing counted', async () => {
    const { resolve, announced, counted } = bed(view('SUCCESS'));
    expect(await resolve.execute(COMMAND)).toMatchObject({ status: 'UNCHANGED', notified: false, body: { result: 'SUCCESS' } });
    expect(announced).toEqual([]);
    expect(await counted()).toEqual({});
  });

  it('refuses an unknown transaction, and a malformed outcome, before any record', async () => {
    const { resolve, decided } = bed(view('UNKNOWN'));
    await expect(resolve.execute({ ...COMMAND, transactionId: 'nope' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(resolve.execute({ ...COMMAND, learned: { gatewayCode: 'DECLINED', authorizationCode: '1' } })).rejects.toMatchObject({ field: 'authorizationCode' });
    expect(decided).toEqual([]);
  });
});
