import { GatewayError, RecordOperationMessage, RequestEnvelope } from '@gateway/contracts';
import { Money } from '@gateway/money';
import { Metrics, PastDeadlineError, type AppLogger } from '@gateway/platform';
import { CompletionAfterResolution, type RecordOperation } from '../record-operation/record-operation.use-case';
import type { RecordInput } from '../record-operation/record-input';
import type { ReleaseReservation } from '../release-reservation/release-reservation.use-case';
import { outcomeOfAcquirer } from '../refund-order/refund-outcome';
import { CardOutcome, outcomeOfAuthorization, outcomeOfFollowOn } from './card-outcome';
import { OUTCOME_UNKNOWN, type OperationOutcome } from './operation-outcome';
import { ACQUIRER_ANSWERS_REFUSED_METRIC, ReservedOperation, RunReservedOperation } from './reserved-operation';
import { authorizationAnswer, captureAnswer, refundAnswer, voidAnswer } from './testing-acquirer-answers';

/**
 * The runner with the ledger's steps stubbed: what it calls, answers and logs. The ledger's own
 * behaviour (reserve, complete, release on Postgres) is refund.int-spec.ts's and card-payments.int-spec.ts's.
 */
describe('RunReservedOperation', () => {
  const reservation = { mode: 'CREATE' } as unknown as RecordOperationMessage;
  const completed = (result: string) => ({ mode: 'UPDATE', result }) as unknown as RecordOperationMessage;
  const written = { order: 'as reserved' };

  function setUp(reserve: { replayed: boolean } = { replayed: false }) {
    const record = {
      execute: jest.fn(async (_message: RecordOperationMessage, step: string) =>
        step === 'RESERVE' ? { body: { result: 'PENDING' }, replayed: reserve.replayed, written } : { body: { result: 'DONE' }, replayed: false },
      ),
    };
    const release = { execute: jest.fn(async () => undefined) };
    const logger = { warn: jest.fn(), error: jest.fn(), info: jest.fn() };
    const metrics = new Metrics();
    const runner = new RunReservedOperation(record as unknown as RecordOperation, release as unknown as ReleaseReservation, logger as unknown as AppLogger, metrics);
    const operation = (overrides: Partial<ReservedOperation> = {}): ReservedOperation => ({
      envelope: { merchant: { id: 'M1' }, fencingToken: '7' } as unknown as RequestEnvelope,
      orderId: 'o-1',
      transactionId: 't-1',
      apiOperation: 'REFUND',
      requestHash: 'hash-1',
      reservation,
      seen: null,
      perform: jest.fn(async (): Promise<CardOutcome> => ({ result: 'SUCCESS', gatewayCode: 'APPROVED' })),
      asked: { amount: Money.of('10.00', 'USD'), partialApproval: false },
      completion: jest.fn((outcome) => completed(outcome.result)),
      unavailable: () => GatewayError.serverBusy(),
      log: { name: 'refund', fields: { route: 'PROVIDER' } },
      ...overrides,
    });
    return { record, release, logger, runner, operation, metrics };
  }

  it('answers a reservation the same request made first as stored, flagged replayed: nothing called, nothing completed', async () => {
    const { record, runner, operation } = setUp({ replayed: true });
    const op = operation();
    await expect(runner.execute(op)).resolves.toEqual({ body: { result: 'PENDING' }, replayed: true, written });
    expect(op.perform).not.toHaveBeenCalled();
    expect(record.execute).toHaveBeenCalledTimes(1);
  });

  it('records UNKNOWN when the call gave no outcome, and names the operation and its log fields in the line reconciled from', async () => {
    const { record, logger, runner, operation } = setUp();
    const op = operation({ perform: jest.fn(async () => Promise.reject(new Error('timed out'))) });
    await expect(runner.execute(op)).resolves.toMatchObject({ body: { result: 'DONE' }, replayed: false });
    expect(op.completion).toHaveBeenCalledWith(OUTCOME_UNKNOWN);
    expect(record.execute).toHaveBeenLastCalledWith(completed('UNKNOWN'), 'COMPLETE', written);
    expect(logger.warn).toHaveBeenCalledWith(
      expect.objectContaining({ orderId: 'o-1', transactionId: 't-1', apiOperation: 'REFUND', route: 'PROVIDER' }),
      'refund outcome unknown: recorded as UNKNOWN, amount kept reserved',
    );
  });

  it('hands its deadline to the reservation, which checks it once it holds its connection, and never to the completion', async () => {
    const { record, runner, operation } = setUp();
    const deadline = Date.now() + 60_000;
    await runner.execute(operation({ deadline }));
    expect(record.execute).toHaveBeenNthCalledWith(1, reservation, 'RESERVE', null, deadline);
    expect(record.execute).toHaveBeenNthCalledWith(2, completed('SUCCESS'), 'COMPLETE', written);
  });

  it('refuses, before it asks the ledger for anything, an operation already past its deadline: nothing reserved, performed or released', async () => {
    const { record, release, runner, operation } = setUp();
    const op = operation({ deadline: Date.now() - 1 });
    await expect(runner.execute(op)).rejects.toBeInstanceOf(PastDeadlineError);
    expect(record.execute).not.toHaveBeenCalled();
    expect(op.perform).not.toHaveBeenCalled();
    expect(release.execute).not.toHaveBeenCalled();
  });

  it('calls itself a card operation in its log lines unless told otherwise', async () => {
    const { logger, runner, operation } = setUp();
    await runner.execute(operation({ log: undefined, perform: jest.fn(async () => Promise.reject(new Error('timed out'))) }));
    expect(logger.warn).toHaveBeenCalledWith(expect.anything(), 'card operation outcome unknown: recorded as UNKNOWN, amount kept reserved');
  });

  it('releases a reservation the callee refused before anything happened, and says which one when the release fails', async () => {
    const { release, logger, runner, operation } = setUp();
    const refused = GatewayError.invalidRequest('the vault refused the token');
    const unreleased = GatewayError.invalidRequest('no reservation to release');
    release.execute.mockRejectedValueOnce(unreleased);
    await expect(runner.execute(operation({ perform: jest.fn(async () => Promise.reject(refused)) }))).rejects.toBe(unreleased);
    expect(release.execute).toHaveBeenCalledWith({
      merchantId: 'M1',
      orderId: 'o-1',
      transactionId: 't-1',
      apiOperation: 'REFUND',
      requestHash: 'hash-1',
      fencingToken: '7',
    });
    expect(logger.error).toHaveBeenCalledWith(
      expect.objectContaining({ orderId: 'o-1', transactionId: 't-1', route: 'PROVIDER' }),
      'refund refused before any money moved, but its reservation could not be released: it stays PENDING holding its amount; release it',
    );
  });

  it('says which operation was performed but not recorded when its completion cannot be written', async () => {
    const { record, logger, runner, operation } = setUp();
    const refused = GatewayError.invalidRequest('no reservation to complete');
    record.execute.mockImplementation(async (_message, step) => {
      if (step === 'COMPLETE') throw refused;
      return { body: { result: 'PENDING' }, replayed: false, written };
    });
    await expect(runner.execute(operation())).rejects.toBe(refused);
    expect(logger.error).toHaveBeenCalledWith(
      expect.objectContaining({ orderId: 'o-1', transactionId: 't-1', result: 'SUCCESS', gatewayCode: 'APPROVED' }),
      'refund performed but not recorded: reconcile this transaction, it stays PENDING in the ledger',
    );
  });

  it('says and counts a completion that finds its reservation resolved as abandoned with another outcome: the ledger and the acquirer disagree', async () => {
    const { record, logger, runner, operation, metrics } = setUp();
    const input = { apiOperation: 'PAY', orderId: 'o-1', transactionId: 't-1', transaction: { result: 'SUCCESS', gatewayCode: 'APPROVED' } } as unknown as RecordInput;
    const resolved = new CompletionAfterResolution(input, { result: 'FAILURE', gatewayCode: 'DECLINED' } as never);
    record.execute.mockImplementation(async (_message, step) => {
      if (step === 'COMPLETE') throw resolved;
      return { body: { result: 'PENDING' }, replayed: false, written };
    });
    await expect(runner.execute(operation({ apiOperation: 'PAY', log: undefined }))).rejects.toBe(resolved);
    expect(logger.error).toHaveBeenCalledWith(
      expect.objectContaining({ orderId: 'o-1', transactionId: 't-1', gatewayCode: 'APPROVED', recordedResult: 'FAILURE', recordedGatewayCode: 'DECLINED' }),
      'card operation performed after its reservation was resolved as abandoned with another outcome: the ledger and the acquirer disagree, reconcile this transaction',
    );
    expect(logger.error).not.toHaveBeenCalledWith(expect.anything(), expect.stringContaining('it stays PENDING'));
    const counted = (await metrics.registry.getSingleMetric('gateway_completions_after_resolution_total')!.get()).values;
    expect(counted).toEqual([expect.objectContaining({ value: 1, labels: { operation: 'PAY', recorded: 'DECLINED', performed: 'APPROVED' } })]);
  });

  describe("an acquirer's success that disagrees with what was asked (docs/decisions/acquirer-answer-checks.md)", () => {
    const usd = (amount: string) => Money.of(amount, 'USD');
    /** The operation's call made by a connector stub answering `answer`, mapped as the operation maps it. */
    const answering = (answer: () => OperationOutcome) => jest.fn(async () => answer() as CardOutcome);

    const wrong: [string, string, boolean, () => OperationOutcome, string][] = [
      ['PAY approved for more than asked', 'PAY', true, () => outcomeOfAuthorization(authorizationAnswer(usd('10.01'), usd('10.00'))), 'MORE_THAN_ASKED'],
      ['PAY partially approved though the request accepted no partial approval', 'PAY', false, () => outcomeOfAuthorization(authorizationAnswer(usd('5.00'), usd('10.00'), 'PARTIALLY_APPROVED')), 'PARTIAL_NOT_ACCEPTED'],
      ['AUTHORIZE answered in another currency', 'AUTHORIZE', true, () => outcomeOfAuthorization(authorizationAnswer(Money.of('10.00', 'EUR'), Money.of('10.00', 'EUR'))), 'CURRENCY'],
      ['AUTHORIZE approved for nothing', 'AUTHORIZE', true, () => outcomeOfAuthorization(authorizationAnswer(usd('0.00'), usd('10.00'), 'PARTIALLY_APPROVED')), 'NOT_POSITIVE'],
      ['CAPTURE of a part', 'CAPTURE', false, () => outcomeOfFollowOn(captureAnswer(usd('4.00'))), 'PARTIAL_NOT_ACCEPTED'],
      ['REFUND of a part', 'REFUND', false, () => outcomeOfAcquirer(refundAnswer(usd('4.00'), 'PARTIALLY_APPROVED')), 'PARTIAL_NOT_ACCEPTED'],
      ['REFUND of more than asked', 'REFUND', false, () => outcomeOfAcquirer(refundAnswer(usd('40.00'))), 'MORE_THAN_ASKED'],
      ['VOID answered PARTIALLY_APPROVED', 'VOID', false, () => outcomeOfFollowOn(voidAnswer('PARTIALLY_APPROVED')), 'PARTIAL_NOT_ACCEPTED'],
    ];

    it.each(wrong)('records UNKNOWN when the acquirer answers a %s, logs it as an error naming the transaction and counts it', async (_case, apiOperation, partialApproval, answer, discrepancy) => {
      const { record, logger, runner, operation, metrics } = setUp();
      const op = operation({ apiOperation, log: undefined, asked: { amount: usd('10.00'), partialApproval }, perform: answering(answer) });
      await runner.execute(op);
      // The operation's completion records OUTCOME_UNKNOWN at the amount it reserved (the amount asked).
      expect(op.completion).toHaveBeenCalledWith(OUTCOME_UNKNOWN);
      expect(record.execute).toHaveBeenLastCalledWith(completed('UNKNOWN'), 'COMPLETE', written);
      expect(logger.error).toHaveBeenCalledWith(
        expect.objectContaining({ orderId: 'o-1', transactionId: 't-1', apiOperation, discrepancy, acquirerTransactionId: 'MCC0000011121' }),
        'card operation answered by the acquirer with a success that disagrees with what was asked: recorded as UNKNOWN, amount asked kept reserved; reconcile this transaction with the acquirer',
      );
      const line = JSON.stringify(logger.error.mock.calls);
      expect(line).not.toMatch(/512345|0008|authorizationCode/);
      const counted = (await metrics.registry.getSingleMetric(ACQUIRER_ANSWERS_REFUSED_METRIC)!.get()).values;
      expect(counted.filter((v) => v.value > 0)).toEqual([expect.objectContaining({ value: 1, labels: { operation: apiOperation, discrepancy } })]);
    });

    it('records a partial approval the PAY or AUTHORIZE accepted as it was answered, PARTIALLY_APPROVED at the approved amount', async () => {
      for (const apiOperation of ['PAY', 'AUTHORIZE']) {
        const { logger, runner, operation, metrics } = setUp();
        const outcome = outcomeOfAuthorization(authorizationAnswer(usd('5.25'), usd('10.51'), 'PARTIALLY_APPROVED'));
        const op = operation({ apiOperation, asked: { amount: usd('10.51'), partialApproval: true }, perform: jest.fn(async () => outcome) });
        await runner.execute(op);
        expect(op.completion).toHaveBeenCalledWith(outcome);
        expect(outcome).toMatchObject({ result: 'SUCCESS', gatewayCode: 'PARTIALLY_APPROVED' });
        expect(outcome.approvedAmount?.toFixed()).toBe('5.25');
        expect(logger.error).not.toHaveBeenCalled();
        const counted = (await metrics.registry.getSingleMetric(ACQUIRER_ANSWERS_REFUSED_METRIC)!.get()).values;
        expect(counted.every((v) => v.value === 0)).toBe(true);
      }
    });

    it('records the answers that agree as they are: a full approval, a capture and a refund of what was asked, a decline', async () => {
      const agreeing = [
        outcomeOfAuthorization(authorizationAnswer(usd('10.00'), usd('10.00'))),
        outcomeOfFollowOn(captureAnswer(usd('10.00'))),
        outcomeOfAcquirer(refundAnswer(usd('10.00'))),
        outcomeOfFollowOn(voidAnswer()),
        outcomeOfAuthorization(authorizationAnswer(usd('99.00'), usd('10.00'), 'DECLINED', 'FAILURE')),
      ];
      for (const outcome of agreeing) {
        const { logger, runner, operation } = setUp();
        const op = operation({ perform: jest.fn(async () => outcome as CardOutcome) });
        await runner.execute(op);
        expect(op.completion).toHaveBeenCalledWith(outcome);
        expect(logger.error).not.toHaveBeenCalled();
      }
    });
  });
});
