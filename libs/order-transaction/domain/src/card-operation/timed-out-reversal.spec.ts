import { AcquirerConnector, AcquirerRegistry, TestAcquirer, VoidRequest, VoidResult } from '@gateway/acquirer';
import { defaultMerchantSettings, MerchantContext } from '@gateway/contracts';
import { AppLogger, Metrics } from '@gateway/platform';
import type { OperationOutcome } from './operation-outcome';
import { TIMED_OUT_REVERSALS_METRIC, TimedOutTransaction, TimedOutReversal } from './timed-out-reversal';

const MERCHANT: MerchantContext = { id: 'TESTMERCHANT1', mode: 'TEST', settings: defaultMerchantSettings() };
const TRANSACTION: TimedOutTransaction = { merchant: MERCHANT, orderId: 'o1', transactionId: 'p1', type: 'PAYMENT' };
const TIMED_OUT: OperationOutcome = {
  result: 'FAILURE',
  gatewayCode: 'TIMED_OUT',
  acquirerCode: '68',
  acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC1234561126' },
  receipt: '633002622243',
};

interface Bed {
  reversal: TimedOutReversal;
  voids: VoidRequest[];
  logged: { level: string; fields: Record<string, unknown>; message: string }[];
  counted: () => Promise<Record<string, number>>;
}

/** A registry whose connector's void answers as `answer` says (the test acquirer's, by default). */
function bed(answer?: (request: VoidRequest) => Promise<VoidResult>, waitMs?: number): Bed {
  const metrics = new Metrics();
  const voids: VoidRequest[] = [];
  const acquirer = new TestAcquirer();
  const connector = {
    acquirerId: acquirer.acquirerId,
    void: (request: VoidRequest) => {
      voids.push(request);
      return answer ? answer(request) : acquirer.void(request);
    },
  } as unknown as AcquirerConnector;
  const registry = { forRecordedAcquirer: () => connector } as unknown as AcquirerRegistry;
  const logged: Bed['logged'] = [];
  const log = (level: string) => (fields: Record<string, unknown>, message: string) => logged.push({ level, fields, message });
  const logger = { info: log('info'), warn: log('warn'), error: log('error') } as unknown as AppLogger;
  const counted = async () => {
    const values = (await metrics.registry.getSingleMetric(TIMED_OUT_REVERSALS_METRIC)!.get()).values;
    return Object.fromEntries(values.filter((v) => v.value > 0).map((v) => [v.labels.outcome as string, v.value]));
  };
  return { reversal: new TimedOutReversal(registry, logger, metrics, waitMs), voids, logged, counted };
}

describe('TimedOutReversal', () => {
  it("exports every outcome at 0 before the first reversal, so the alert's increase() sees a process's first one that was not done", async () => {
    const metrics = new Metrics();
    new TimedOutReversal({} as AcquirerRegistry, {} as AppLogger, metrics);
    const text = await metrics.registry.metrics();
    for (const outcome of ['REVERSED', 'REFUSED', 'FAILED', 'NO_REFERENCE']) {
      expect(text).toContain(`${TIMED_OUT_REVERSALS_METRIC}{outcome="${outcome}"} 0`);
    }
  });

  it('reverses a TIMED_OUT answer at the acquirer by its reference, and answers the decline as it was', async () => {
    const { reversal, voids, counted } = bed();
    expect(await reversal.afterCall(TIMED_OUT, TRANSACTION)).toBe(TIMED_OUT);
    expect(voids).toEqual([
      {
        merchantId: 'TESTMERCHANT1',
        orderId: 'o1',
        transactionId: 'p1',
        target: { acquirerTransactionId: 'MCC1234561126', receipt: '633002622243' },
        targetType: 'PAYMENT',
      },
    ]);
    expect(await counted()).toEqual({ REVERSED: 1 });
  });

  it('reverses at the acquirer that answered TIMED_OUT, though the merchant was switched to LIVE since the order opened', async () => {
    const metrics = new Metrics();
    const logger = { info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as AppLogger;
    const reversal = new TimedOutReversal(new AcquirerRegistry(metrics), logger, metrics);
    const live: MerchantContext = { ...MERCHANT, mode: 'LIVE' };
    await reversal.afterCall(TIMED_OUT, { ...TRANSACTION, merchant: live, type: 'REFUND' });
    const counted = (await metrics.registry.getSingleMetric(TIMED_OUT_REVERSALS_METRIC)!.get()).values.filter((v) => v.value > 0);
    expect(counted.map((v) => v.labels.outcome)).toEqual(['REVERSED']);
  });

  it('leaves every other answer alone, approvals and other declines alike', async () => {
    const { reversal, voids, counted } = bed();
    for (const gatewayCode of ['APPROVED', 'DECLINED', 'ACQUIRER_SYSTEM_ERROR', 'UNKNOWN']) {
      await reversal.afterCall({ ...TIMED_OUT, gatewayCode }, TRANSACTION);
    }
    expect(voids).toEqual([]);
    expect(await counted()).toEqual({});
  });

  it('logs a refused reversal for reconciliation and still answers the decline', async () => {
    const { reversal, logged, counted } = bed(async (request) => ({ ...(await new TestAcquirer().void(request)), result: 'FAILURE', gatewayCode: 'DECLINED' }));
    expect(await reversal.afterCall(TIMED_OUT, TRANSACTION)).toBe(TIMED_OUT);
    expect(logged).toEqual([
      { level: 'warn', fields: { orderId: 'o1', transactionId: 'p1', type: 'PAYMENT', gatewayCode: 'DECLINED' }, message: expect.stringContaining('reconcile') },
    ]);
    expect(await counted()).toEqual({ REFUSED: 1 });
  });

  it('never lets a failed reversal change the answer: it is logged and counted', async () => {
    const failure = new Error('acquirer link down');
    const { reversal, logged, counted } = bed(() => Promise.reject(failure));
    await expect(reversal.afterCall(TIMED_OUT, { ...TRANSACTION, type: 'REFUND' })).resolves.toBe(TIMED_OUT);
    expect(logged).toEqual([
      { level: 'error', fields: { orderId: 'o1', transactionId: 'p1', type: 'REFUND', err: failure }, message: expect.stringContaining('reconcile') },
    ]);
    expect(await counted()).toEqual({ FAILED: 1 });
  });

  it('waits a bounded time for the reversal: unanswered, it is counted FAILED and the decline answered', async () => {
    const { reversal, logged, counted } = bed(() => new Promise<never>(() => undefined), 20);
    await expect(reversal.afterCall(TIMED_OUT, TRANSACTION)).resolves.toBe(TIMED_OUT);
    expect(logged).toEqual([
      { level: 'error', fields: expect.objectContaining({ orderId: 'o1', err: expect.objectContaining({ message: 'no answer to the reversal within 20 ms' }) }), message: expect.stringContaining('reconcile') },
    ]);
    expect(await counted()).toEqual({ FAILED: 1 });
  });

  it('cannot reverse a TIMED_OUT answer without the acquirer\'s reference: logged and counted, nothing sent', async () => {
    const { reversal, voids, logged, counted } = bed();
    const { acquirer: _acquirer, ...withoutReference } = TIMED_OUT;
    expect(await reversal.afterCall(withoutReference, TRANSACTION)).toBe(withoutReference);
    expect(voids).toEqual([]);
    expect(logged).toEqual([{ level: 'error', fields: { orderId: 'o1', transactionId: 'p1', type: 'PAYMENT' }, message: expect.stringContaining('reconcile') }]);
    expect(await counted()).toEqual({ NO_REFERENCE: 1 });
  });
});
