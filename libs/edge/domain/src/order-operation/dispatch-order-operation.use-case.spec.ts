import { defaultMerchantSettings, GatewayError, SUBJECTS } from '@gateway/contracts';
import { Lease, LockService, MemoryLockService } from '@gateway/locking';
import { createLogger, MessageBus, Metrics, NotDeliveredError, RequestReplyClient, UnansweredError } from '@gateway/platform';
import { TEST_CARD } from '@gateway/testing';
import { MemorySessionStore, sessionState } from '@gateway/edge/data-access';
import { ApplySession } from '../apply-session/apply-session.use-case';
import { SessionEditor } from '../sessions/session-editor';
import { UsedSecurityCodes } from '../sessions/used-security-codes';
import { SESSION_WITH_CODE, sessionWithCode } from '../testing/session-with-code';
import { DispatchOrderOperation, OrderOperationCommand, UNANSWERED_OPERATION_EXPLANATION } from './dispatch-order-operation.use-case';

const command: OrderOperationCommand = {
  merchant: { id: 'TESTMERCHANT', mode: 'TEST', settings: defaultMerchantSettings() },
  authMethod: 'PASSWORD',
  apiVersion: 100,
  requestId: 'req-1',
  orderId: 'order-1',
  transactionId: 'txn-1',
  body: {
    apiOperation: 'VERIFY',
    order: { currency: 'USD' },
    sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: { month: '1', year: '39' } } } },
  },
};

const SESSION = SESSION_WITH_CODE;

function dispatcherAnswering(reply: (subject: string, message: unknown) => Promise<unknown>, locks: LockService = new MemoryLockService(), waitMs = 0) {
  const request = jest.fn(reply);
  const bus = { request, deadline: (timeoutMs = REQUEST_TIMEOUT_MS) => NOW + timeoutMs } as unknown as MessageBus;
  const metrics = new Metrics();
  const logger = createLogger({ service: 'test', level: 'silent' });
  const warn = jest.spyOn(logger, 'warn');
  const sessions = new MemorySessionStore();
  const usedSecurityCodes = new UsedSecurityCodes(new SessionEditor(bus), sessions, logger);
  const dispatch = new DispatchOrderOperation(bus, locks, { waitMs, ttlMs: 1_000 }, logger, metrics, new ApplySession(sessions), usedSecurityCodes);
  return { dispatch, metrics, request, warn, sessions };
}

/** The fake bus's clock and default request timeout. */
const NOW = 1_800_000_000_000;
const REQUEST_TIMEOUT_MS = 10_000;
/** The time the fake bus says a request sent now with the default timeout stops being waited for. */
const DEADLINE = NOW + REQUEST_TIMEOUT_MS;

/** Another operation holds every order. */
const busy: LockService = { acquire: async () => null };

describe('DispatchOrderOperation', () => {
  it('answers LOCK_FAILURE (201 body) when the ledger refuses a stale fencing token', async () => {
    const { dispatch, metrics } = dispatcherAnswering(() =>
      Promise.reject(new GatewayError('ORDER_LOCK_LOST', { explanation: 'lost' })),
    );
    const result = await dispatch.execute(command);
    expect(result.body).toMatchObject({
      order: { id: 'order-1' },
      response: { gatewayCode: 'LOCK_FAILURE' },
      result: 'FAILURE',
      transaction: { id: 'txn-1' },
    });
    expect((await metrics.lockFailures.get()).values[0].value).toBe(1);
  });

  it('stamps the operation with the time this edge stops waiting for it', async () => {
    const { dispatch, request } = dispatcherAnswering(async () => ({ body: { result: 'SUCCESS' } }));
    await dispatch.execute(command);
    expect(request).toHaveBeenCalledWith(SUBJECTS.orderTransaction.verify, expect.objectContaining({ deadline: DEADLINE }), { deadline: DEADLINE });
  });

  it('tells the merchant an operation the service did not answer in time may have been processed, and to retry with the same id', async () => {
    const { dispatch } = dispatcherAnswering(() => Promise.reject(new UnansweredError(SUBJECTS.orderTransaction.verify)));
    const err = await dispatch.execute(command).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({ code: 'SERVER_BUSY', httpStatus: 503, retryAfterSeconds: 1, explanation: UNANSWERED_OPERATION_EXPLANATION });
    expect((err as GatewayError).toResponseBody()).toEqual({ error: { cause: 'SERVER_BUSY', explanation: UNANSWERED_OPERATION_EXPLANATION }, result: 'ERROR' });
    expect(UNANSWERED_OPERATION_EXPLANATION).toMatch(/may still have been processed/);
    expect(UNANSWERED_OPERATION_EXPLANATION).toMatch(/same transaction id/);
    expect(UNANSWERED_OPERATION_EXPLANATION.length).toBeLessThanOrEqual(1000);
  });

  it('keeps the plain explanation for an operation refused unprocessed (not delivered, shed, past its deadline): nothing was done', async () => {
    const { dispatch } = dispatcherAnswering(() => Promise.reject(new NotDeliveredError(SUBJECTS.orderTransaction.verify)));
    await expect(dispatch.execute(command)).rejects.toMatchObject({ code: 'SERVER_BUSY', explanation: GatewayError.serverBusy().explanation });
  });

  it("hands the service the fencing token of this operation's order lock", async () => {
    const memory = new MemoryLockService();
    const leases: Lease[] = [];
    const locks: LockService = {
      acquire: async (key, options) => {
        const lease = await memory.acquire(key, options);
        if (lease) leases.push(lease);
        return lease;
      },
    };
    const { dispatch, request } = dispatcherAnswering(async () => ({ body: { result: 'SUCCESS' } }), locks);
    await dispatch.execute(command);
    await dispatch.execute(command);
    const sent = request.mock.calls.map((call) => (call as unknown[])[1] as { envelope: { fencingToken: string } });
    expect(sent.map((message) => message.envelope.fencingToken)).toEqual(leases.map((lease) => lease.fencingToken));
    expect(BigInt(leases[1].fencingToken)).toBeGreaterThan(BigInt(leases[0].fencingToken));
  });

  it('answers LOCK_FAILURE with the order as the ledger holds it, read without the lock and never sent the operation', async () => {
    const order = { id: 'order-1', currency: 'USD', status: 'VERIFIED', totalAuthorizedAmount: 0, totalCapturedAmount: 0, totalRefundedAmount: 0 };
    const { dispatch, metrics, request } = dispatcherAnswering(async () => ({ body: { ...order, result: 'SUCCESS', transaction: [] } }), busy);

    const result = await dispatch.execute(command);

    expect(result.body).toMatchObject({
      order,
      response: { gatewayCode: 'LOCK_FAILURE' },
      result: 'FAILURE',
      transaction: { id: 'txn-1', type: 'VERIFICATION', amount: 0, currency: 'USD' },
    });
    expect(request).toHaveBeenCalledTimes(1);
    expect(request).toHaveBeenCalledWith(
      SUBJECTS.orderTransaction.retrieveOrder,
      { envelope: { merchant: command.merchant, apiVersion: 100, requestId: 'req-1', authMethod: 'PASSWORD' }, orderId: 'order-1', deadline: NOW + 1_000 },
      { timeoutMs: 1_000 },
    );
    expect((await metrics.lockFailures.get()).values[0].value).toBe(1);
  });

  it("stamps the LOCK_FAILURE answer's read of the order with the end of that read's own wait, not the operation's, and not on the envelope", async () => {
    const { dispatch, request } = dispatcherAnswering(async () => ({ body: { id: 'order-1', result: 'SUCCESS', transaction: [] } }), busy);
    await dispatch.execute(command);
    const [[subject, read, options]] = request.mock.calls as unknown as [string, { deadline?: number; envelope: object }, { timeoutMs: number }][];
    expect(subject).toBe(SUBJECTS.orderTransaction.retrieveOrder);
    // The ledger refuses the read once the answer has gone out without the order.
    expect(read.deadline).toBe(NOW + options.timeoutMs);
    expect(read.deadline).toBeLessThan(DEADLINE);
    expect(read.envelope).not.toHaveProperty('deadline');
  });

  it('answers LOCK_FAILURE without the order when the ledger refused the read past its deadline, as when it did not answer', async () => {
    const { dispatch, warn } = dispatcherAnswering((subject) => Promise.reject(new NotDeliveredError(subject)), busy);
    const body = (await dispatch.execute(command)).body;
    expect(body).toMatchObject({ order: { id: 'order-1', currency: 'USD' }, response: { gatewayCode: 'LOCK_FAILURE' }, result: 'FAILURE' });
    expect(body.order).not.toHaveProperty('totalAuthorizedAmount');
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ orderId: 'order-1' }), expect.stringContaining('without the order'));
  });

  it('answers LOCK_FAILURE from the request alone when the order does not exist yet (totals zero), or the ledger does not answer the read (no totals)', async () => {
    // The acquirer is the one the merchant's profile routes its card operations to (a test merchant's: the test acquirer).
    const fromRequest = {
      order: { id: 'order-1', currency: 'USD', totalAuthorizedAmount: 0, totalCapturedAmount: 0, totalRefundedAmount: 0 },
      transaction: { id: 'txn-1', type: 'VERIFICATION', amount: 0, currency: 'USD', acquirer: { id: 'TEST_ACQUIRER' } },
    };
    const missing = dispatcherAnswering(() => Promise.reject(new GatewayError('NOT_FOUND', { explanation: 'none' })), busy);
    expect((await missing.dispatch.execute(command)).body).toMatchObject(fromRequest);
    expect(missing.warn).not.toHaveBeenCalled();

    // The order may exist and hold captured funds: its totals are not known, so not shown as zero.
    const away = dispatcherAnswering(() => Promise.reject(new GatewayError('SERVER_BUSY', { explanation: 'busy' })), busy);
    const awayBody = (await away.dispatch.execute(command)).body;
    expect(awayBody.order).toEqual({ id: 'order-1', currency: 'USD' });
    expect(awayBody.transaction).toEqual(fromRequest.transaction);
    expect(away.warn).toHaveBeenCalledWith(expect.objectContaining({ orderId: 'order-1' }), expect.stringContaining('without the order'));

    // A live merchant has no acquirer configured: none is named.
    const live = { ...command, merchant: { ...command.merchant, id: 'MLIVE', mode: 'LIVE' as const } };
    const liveBody = (await missing.dispatch.execute(live)).body;
    expect(liveBody.transaction).toEqual({ id: 'txn-1', type: 'VERIFICATION', amount: 0, currency: 'USD' });
  });

  describe('responseControls.sensitiveData=UNMASK', () => {
    const UNMASK = { responseControls: { sensitiveData: 'UNMASK' } };
    /** One valid body of every order operation, each asking for UNMASK. */
    const bodies = {
      VERIFY: command.body,
      REFUND: { apiOperation: 'REFUND', transaction: { amount: '1.00', currency: 'USD' } },
      INITIATE_BROWSER_PAYMENT: {
        apiOperation: 'INITIATE_BROWSER_PAYMENT',
        browserPayment: { returnUrl: 'https://merchant.example/return' },
        order: { amount: '10.00', currency: 'EUR' },
        sourceOfFunds: { type: 'PROVIDER_C' },
      },
      CONFIRM_BROWSER_PAYMENT: { apiOperation: 'CONFIRM_BROWSER_PAYMENT' },
      AUTHORIZE: { ...command.body, apiOperation: 'AUTHORIZE', order: { amount: '1.00', currency: 'USD' } },
      PAY: { ...command.body, apiOperation: 'PAY', order: { amount: '1.00', currency: 'USD' } },
      CAPTURE: { apiOperation: 'CAPTURE', transaction: { amount: '1.00', currency: 'USD' } },
      VOID: { apiOperation: 'VOID', transaction: { targetTransactionId: 'pay-1' } },
    };
    const permitted = { ...command.merchant, settings: { ...command.merchant.settings, privileges: { ...command.merchant.settings.privileges, unmask: true } } };

    it.each(Object.entries(bodies))('%s: refused (400 on the field) without the permission and certificate authentication, before the lock and any service', async (_operation, body) => {
      const acquire = jest.fn(async () => null);
      const { dispatch, request } = dispatcherAnswering(async () => ({ body: { result: 'SUCCESS' } }), { acquire });
      for (const refused of [
        { ...command, body: { ...body, ...UNMASK } }, // a password, no permission
        { ...command, merchant: permitted, body: { ...body, ...UNMASK } }, // the permission, a password
        { ...command, authMethod: 'CERTIFICATE' as const, body: { ...body, ...UNMASK } }, // a certificate, no permission
      ]) {
        await expect(dispatch.execute(refused)).rejects.toMatchObject({
          httpStatus: 400,
          field: 'responseControls.sensitiveData',
          validationType: 'INVALID',
        });
      }
      expect(acquire).not.toHaveBeenCalled();
      expect(request).not.toHaveBeenCalled();
    });

    it.each(Object.entries(bodies))('%s: sent on with the permission and certificate authentication, or without UNMASK', async (_operation, body) => {
      const { dispatch, request } = dispatcherAnswering(async () => ({ body: { result: 'SUCCESS' } }));
      await dispatch.execute({ ...command, merchant: permitted, authMethod: 'CERTIFICATE', body: { ...body, ...UNMASK } });
      await dispatch.execute({ ...command, body: { ...body, responseControls: { sensitiveData: 'MASK' } } });
      await dispatch.execute({ ...command, body });
      expect(request).toHaveBeenCalledTimes(3);
    });
  });

  it('passes other service errors through unchanged', async () => {
    const { dispatch } = dispatcherAnswering(() => Promise.reject(GatewayError.invalidRequest('no')));
    await expect(dispatch.execute(command)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });
});

describe('DispatchOrderOperation: a session\'s security code', () => {
  const masked = { number: '512345xxxxxx0008' };

  /** The ledger has no response for the transaction: the operation is not a replay. */
  const notAnsweredBefore = () => Promise.reject(new GatewayError('NOT_FOUND', { explanation: 'no transaction' }));

  /**
   * A session whose card holds a security code; the vault seals it again without when asked, and
   * the ledger holds no response for the transaction unless `ledgerResponse` answers it.
   */
  async function withSession(
    reply: (subject: string, message: unknown) => Promise<unknown>,
    locks?: LockService,
    waitMs?: number,
    ledgerResponse: (read: { orderId: string }) => Promise<unknown> = notAnsweredBefore,
  ) {
    const answering = dispatcherAnswering(async (subject, message) => {
      if (subject === SUBJECTS.tokenVault.sealCard) return { sealed: 'sealed-without-code', card: masked, securityCodePresent: false };
      if (subject === SUBJECTS.orderTransaction.retrieveTransaction) return ledgerResponse(message as { orderId: string });
      return reply(subject, message);
    }, locks, waitMs);
    const session = sessionWithCode(command.merchant.id, masked);
    await answering.sessions.create(session, { ttlMs: 60_000, expiredNoticeMs: 60_000 });
    const execute = (orderId = command.orderId) =>
      answering.dispatch.execute({ ...command, orderId, body: { apiOperation: 'VERIFY', order: { currency: 'USD' }, session: { id: SESSION }, sourceOfFunds: { type: 'CARD' } } });
    const stored = async () => {
      const found = await answering.sessions.find(command.merchant.id, SESSION);
      return found.state === 'ACTIVE' ? found.session : null;
    };
    return { ...answering, execute, stored };
  }

  it('is taken out of the session right before the operation that took it is sent: the card sealed again without it, the version kept', async () => {
    const { execute, request, stored } = await withSession(async () => ({ body: { result: 'SUCCESS' } }));
    await execute();
    const calls = request.mock.calls.map((call) => call as unknown as [string, Record<string, unknown>]);
    expect(calls.map(([subject]) => subject)).toEqual([SUBJECTS.orderTransaction.retrieveTransaction, SUBJECTS.tokenVault.sealCard, SUBJECTS.orderTransaction.verify]);
    // The replay check and the seal carry the deadline as the operation does: refused past it, unsent.
    expect(calls[0][1]).toMatchObject({ orderId: command.orderId, transactionId: command.transactionId, deadline: DEADLINE });
    expect(calls[1][1]).toMatchObject({ bindingId: SESSION, previous: 'sealed-with-code', withoutSecurityCode: true, card: {}, deadline: DEADLINE });
    expect(calls[2][1]).toMatchObject({ session: { id: SESSION, sealedCard: 'sealed-with-code' } });
    expect(await stored()).toMatchObject({ version: 'aaaaaaaaaa', card: { sealed: 'sealed-without-code', securityCodePresent: false } });
  });

  it('is not given back when the service failed after it was sent: the acquirer may have had it', async () => {
    const { execute, stored } = await withSession(() => Promise.reject(new GatewayError('SERVER_FAILED', { explanation: 'down' })));
    await expect(execute()).rejects.toMatchObject({ code: 'SERVER_FAILED' });
    expect(await stored()).toMatchObject({ card: { sealed: 'sealed-without-code', securityCodePresent: false } });
  });

  it('is given back when the service refused the operation unprocessed (nobody serving it, over its cap, past its deadline): the retry sends it', async () => {
    let refuse = true;
    const { execute, request, stored } = await withSession(async (subject) =>
      refuse ? Promise.reject(new NotDeliveredError(subject)) : { body: { result: 'SUCCESS' } },
    );
    // The merchant is told what it was told before: busy, nothing done.
    await expect(execute()).rejects.toMatchObject({ code: 'SERVER_BUSY', explanation: GatewayError.serverBusy().explanation });
    expect(await stored()).toMatchObject({ version: 'aaaaaaaaaa', card: { sealed: 'sealed-with-code', securityCodePresent: true, securityCodeGivenIn: 'aaaaaaaaaa' } });

    // The service is back: the retry sends the code, and uses it up.
    refuse = false;
    expect((await execute()).body).toEqual({ result: 'SUCCESS' });
    expect(sentCards(request)).toEqual(['sealed-with-code', 'sealed-with-code']);
    expect(await stored()).toMatchObject({ card: { sealed: 'sealed-without-code', securityCodePresent: false } });
  });

  it('is not given back when the service did not answer in time: it may have the operation, and the acquirer the code', async () => {
    const { execute, stored } = await withSession((subject) => Promise.reject(new UnansweredError(subject)));
    await expect(execute()).rejects.toMatchObject({ code: 'SERVER_BUSY', explanation: UNANSWERED_OPERATION_EXPLANATION });
    expect(await stored()).toMatchObject({ card: { sealed: 'sealed-without-code', securityCodePresent: false } });
  });

  it('answers an operation refused unprocessed as before when the code cannot be given back (the session store failing)', async () => {
    const { execute, sessions, stored, warn } = await withSession((subject) => Promise.reject(new NotDeliveredError(subject)));
    const amend = sessions.amend.bind(sessions);
    // The taking writes; the giving back finds the store away.
    jest.spyOn(sessions, 'amend').mockImplementationOnce(amend).mockRejectedValueOnce(new Error('connection lost'));
    await expect(execute()).rejects.toBeInstanceOf(NotDeliveredError);
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ sessionId: SESSION }), expect.stringContaining('not given back'));
    expect(await stored()).toMatchObject({ card: { sealed: 'sealed-without-code', securityCodePresent: false } });
  });

  it('is given back when the ledger refused a stale fencing token before any acquirer call (LOCK_FAILURE): the retry sends it', async () => {
    let refuse = true;
    const lockLost = new GatewayError('ORDER_LOCK_LOST', { explanation: 'lost', beforeAnyAcquirer: true });
    const { execute, request, stored } = await withSession(async () => (refuse ? Promise.reject(GatewayError.fromWire(lockLost.toWire())) : { body: { result: 'SUCCESS' } }));
    expect((await execute()).body).toMatchObject({ response: { gatewayCode: 'LOCK_FAILURE' }, result: 'FAILURE' });
    expect(await stored()).toMatchObject({ version: 'aaaaaaaaaa', card: { sealed: 'sealed-with-code', securityCodePresent: true, securityCodeGivenIn: 'aaaaaaaaaa' } });

    refuse = false;
    expect((await execute()).body).toEqual({ result: 'SUCCESS' });
    expect(sentCards(request)).toEqual(['sealed-with-code', 'sealed-with-code']);
    expect(await stored()).toMatchObject({ card: { sealed: 'sealed-without-code', securityCodePresent: false } });
  });

  it('is not given back after a stale fencing token refused once the acquirer may have had it (or by a ledger that does not say)', async () => {
    const { execute, stored } = await withSession(() => Promise.reject(new GatewayError('ORDER_LOCK_LOST', { explanation: 'lost' })));
    expect((await execute()).body).toMatchObject({ response: { gatewayCode: 'LOCK_FAILURE' } });
    expect(await stored()).toMatchObject({ card: { sealed: 'sealed-without-code', securityCodePresent: false } });
  });

  it('is kept when the operation was never sent (LOCK_FAILURE)', async () => {
    const { execute, stored } = await withSession(() => Promise.reject(new GatewayError('NOT_FOUND', { explanation: 'no order' })), busy);
    expect((await execute()).body).toMatchObject({ response: { gatewayCode: 'LOCK_FAILURE' } });
    expect(await stored()).toMatchObject({ card: { sealed: 'sealed-with-code', securityCodePresent: true } });
  });

  it('is kept by a replay, which the ledger answers from the stored response: a code the payer entered since goes with the next operation', async () => {
    const answered = { body: { result: 'SUCCESS', response: { gatewayCode: 'APPROVED' } } };
    // order-1 holds the transaction's response; order-2 has none.
    const { execute, request, stored, sessions } = await withSession(async () => answered, undefined, undefined, async (read) =>
      read.orderId === 'order-1' ? answered : notAnsweredBefore(),
    );
    // The payer entered a new code since the first answer: the session's card holds it.
    const session = (await stored())!;
    await sessions.amend({ ...session, card: { ...session.card!, sealed: 'sealed-with-new-code', securityCodeGivenIn: 'bbbbbbbbbb' } }, sessionState(session));

    expect((await execute()).body).toEqual(answered.body);
    const calls = request.mock.calls.map((call) => call as unknown as [string, Record<string, unknown>]);
    expect(calls.map(([subject]) => subject)).toEqual([SUBJECTS.orderTransaction.retrieveTransaction, SUBJECTS.orderTransaction.verify]);
    // The replay goes without the session's card: the ledger needs none to answer it.
    expect(calls[1][1].session).toEqual({ id: SESSION });
    expect(await stored()).toMatchObject({ card: { sealed: 'sealed-with-new-code', securityCodePresent: true } });

    // The next operation that is not a replay sends the new code, and takes it.
    await execute('order-2');
    expect(sentCards(request)).toEqual([undefined, 'sealed-with-new-code']);
    expect(await stored()).toMatchObject({ card: { sealed: 'sealed-without-code', securityCodePresent: false } });
  });

  it('is kept when the ledger cannot say whether the operation is a replay: the operation is not sent', async () => {
    const { execute, request, stored } = await withSession(
      async () => ({ body: { result: 'SUCCESS' } }),
      undefined,
      undefined,
      () => Promise.reject(new GatewayError('SERVER_BUSY', { explanation: 'ledger away' })),
    );
    await expect(execute()).rejects.toMatchObject({ code: 'SERVER_BUSY' });
    expect(request.mock.calls.map(([subject]) => subject)).toEqual([SUBJECTS.orderTransaction.retrieveTransaction]);
    expect(await stored()).toMatchObject({ card: { sealed: 'sealed-with-code', securityCodePresent: true } });
  });

  it('keeps the plain explanation when a read before the send timed out (the replay check, the vault): the operation was never sent', async () => {
    for (const slow of [SUBJECTS.orderTransaction.retrieveTransaction, SUBJECTS.tokenVault.sealCard]) {
      const { dispatch, request } = await withSession(async () => ({ body: { result: 'SUCCESS' } }));
      const answer = request.getMockImplementation()!;
      request.mockImplementation(async (subject, message) => (subject === slow ? Promise.reject(new UnansweredError(subject)) : answer(subject, message)));
      const verify = { ...command, body: { apiOperation: 'VERIFY', order: { currency: 'USD' }, session: { id: SESSION }, sourceOfFunds: { type: 'CARD' } } };
      await expect(dispatch.execute(verify)).rejects.toMatchObject({ code: 'SERVER_BUSY', explanation: GatewayError.serverBusy().explanation });
      expect(request.mock.calls.map(([subject]) => subject)).not.toContain(SUBJECTS.orderTransaction.verify);
    }
  });

  it('is kept when the operation takes no card from the session (a CAPTURE)', async () => {
    const { dispatch, request, stored } = await withSession(async () => ({ body: { result: 'SUCCESS' } }));
    await dispatch.execute({ ...command, body: { apiOperation: 'CAPTURE', transaction: { amount: '1.00', currency: 'USD' }, session: { id: SESSION } } });
    expect(request.mock.calls.map(([subject]) => subject)).toEqual([SUBJECTS.orderTransaction.capture]);
    expect(await stored()).toMatchObject({ card: { sealed: 'sealed-with-code', securityCodePresent: true } });
  });

  it('is kept when the vault cannot seal the card without it: the operation is not sent, and the order is free again', async () => {
    const { dispatch, request, stored } = await withSession(async () => ({ body: { result: 'SUCCESS' } }));
    const answer = request.getMockImplementation()!;
    request.mockImplementation(async (subject, message) =>
      subject === SUBJECTS.tokenVault.sealCard ? Promise.reject(new GatewayError('SERVER_BUSY', { explanation: 'no vault' })) : answer(subject, message),
    );
    const verify = { ...command, body: { apiOperation: 'VERIFY', order: { currency: 'USD' }, session: { id: SESSION }, sourceOfFunds: { type: 'CARD' } } };
    await expect(dispatch.execute(verify)).rejects.toMatchObject({ code: 'SERVER_BUSY' });
    expect(request.mock.calls.map(([subject]) => subject)).toEqual([SUBJECTS.orderTransaction.retrieveTransaction, SUBJECTS.tokenVault.sealCard]);
    expect(await stored()).toMatchObject({ card: { sealed: 'sealed-with-code', securityCodePresent: true } });
    // The lock was released: the next operation on the order gets it at once (waitMs 0).
    request.mockImplementation(answer);
    expect((await dispatch.execute(verify)).body).toEqual({ result: 'SUCCESS' });
  });

  it('refuses the operation, unsent, when the session expired between its reading and the send', async () => {
    const { dispatch, request, sessions } = await withSession(async () => ({ body: { result: 'SUCCESS' } }));
    jest.spyOn(sessions, 'amend').mockResolvedValue('GONE');
    await expect(
      dispatch.execute({ ...command, body: { apiOperation: 'VERIFY', order: { currency: 'USD' }, session: { id: SESSION }, sourceOfFunds: { type: 'CARD' } } }),
    ).rejects.toMatchObject({ httpStatus: 400, field: 'session.id' });
    expect(request.mock.calls.map(([subject]) => subject)).toEqual([SUBJECTS.orderTransaction.retrieveTransaction, SUBJECTS.tokenVault.sealCard]);
  });

  it('is gone by the time the operation is answered, even with a vault slow to seal the card again', async () => {
    const { execute, request, stored } = await withSession(async () => ({ body: { result: 'SUCCESS' } }));
    const answer = request.getMockImplementation()!;
    request.mockImplementation(async (subject, message) => {
      if (subject === SUBJECTS.tokenVault.sealCard) await new Promise((resolve) => setTimeout(resolve, 10));
      return answer(subject, message);
    });
    await execute();
    expect(await stored()).toMatchObject({ card: { sealed: 'sealed-without-code', securityCodePresent: false } });
  });

  /** The sealed cards the operations sent (in the order they were sent). */
  const sentCards = (request: jest.Mock) =>
    request.mock.calls
      .filter(([subject]) => subject === SUBJECTS.orderTransaction.verify)
      .map(([, message]) => (message as { session?: { sealedCard?: string } }).session?.sealedCard);

  /** Resolves when `n` VERIFYs have been sent. */
  function latch(n: number) {
    let sent = 0;
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { opened, sent: () => ++sent === n && open() };
  }

  it('reaches one operation only when two on different orders name the session at once', async () => {
    // The first VERIFY is answered only once the second was sent: both are in flight together.
    const bothSent = latch(2);
    const { execute, request, stored } = await withSession(async () => {
      bothSent.sent();
      await bothSent.opened;
      return { body: { result: 'SUCCESS' } };
    });
    await Promise.all([execute('order-1'), execute('order-2')]);
    expect(sentCards(request).sort()).toEqual(['sealed-with-code', 'sealed-without-code']);
    expect(await stored()).toMatchObject({ version: 'aaaaaaaaaa', card: { sealed: 'sealed-without-code', securityCodePresent: false } });
  });

  it('reaches one operation only when a second on the same order read the session while the first held the order', async () => {
    // The first VERIFY is answered only once the second has read the session (it then waits for the lock).
    let reads = 0;
    let secondRead!: () => void;
    const secondHasRead = new Promise<void>((resolve) => (secondRead = resolve));
    const { execute, request, sessions, stored } = await withSession(async () => {
      await secondHasRead;
      return { body: { result: 'SUCCESS' } };
    }, undefined, 1_000);
    const find = sessions.find.bind(sessions);
    jest.spyOn(sessions, 'find').mockImplementation(async (merchantId, id) => {
      const found = await find(merchantId, id);
      if (++reads === 2) secondRead();
      return found;
    });
    const first = execute();
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all([first, execute()]);
    expect(sentCards(request)).toEqual(['sealed-with-code', 'sealed-without-code']);
    expect(await stored()).toMatchObject({ card: { sealed: 'sealed-without-code', securityCodePresent: false } });
  });
});

describe('DispatchOrderOperation: one budget for everything sent under the lock', () => {
  const masked = { number: '512345xxxxxx0008' };
  const verify = { apiOperation: 'VERIFY', order: { currency: 'USD' }, session: { id: SESSION }, sourceOfFunds: { type: 'CARD' } };

  /** The edge's clock: each service's answer moves it on by the time the service took. */
  let clock: number;
  beforeEach(() => {
    clock = NOW;
    jest.spyOn(Date, 'now').mockImplementation(() => clock);
  });
  afterEach(() => jest.restoreAllMocks());

  /**
   * The real MessageBus over a client whose services take `took[subject]` ms each (none: at once):
   * the ledger holds no response for the transaction, the vault seals the card without the code,
   * the operation's service answers SUCCESS. A session whose card holds a security code.
   */
  async function overServicesTaking(took: Record<string, number>) {
    const sent: { subject: string; message: Record<string, unknown>; timeoutMs: number }[] = [];
    const client: RequestReplyClient = {
      request: async (subject, data, timeoutMs) => {
        sent.push({ subject, message: data as Record<string, unknown>, timeoutMs });
        clock += took[subject] ?? 0;
        if (subject === SUBJECTS.orderTransaction.retrieveTransaction) throw new GatewayError('NOT_FOUND', { explanation: 'no transaction' });
        if (subject === SUBJECTS.tokenVault.sealCard) return { sealed: 'sealed-without-code', card: masked, securityCodePresent: false };
        return { body: { result: 'SUCCESS' } };
      },
    };
    const logger = createLogger({ service: 'test', level: 'silent' });
    const metrics = new Metrics();
    const messaging = { profile: 'standalone' as const, servers: [], subjectPrefix: '', requestTimeoutMs: REQUEST_TIMEOUT_MS, serviceName: 'api-edge' };
    const bus = new MessageBus(client, messaging, logger, metrics);
    const sessions = new MemorySessionStore();
    const usedSecurityCodes = new UsedSecurityCodes(new SessionEditor(bus), sessions, logger);
    const dispatch = new DispatchOrderOperation(bus, new MemoryLockService(), { waitMs: 0, ttlMs: 30_000 }, logger, metrics, new ApplySession(sessions), usedSecurityCodes);
    await sessions.create(sessionWithCode(command.merchant.id, masked), { ttlMs: 3_600_000, expiredNoticeMs: 60_000 });
    const stored = async () => {
      const found = await sessions.find(command.merchant.id, SESSION);
      return found.state === 'ACTIVE' ? found.session : null;
    };
    const execute = () => dispatch.execute({ ...command, body: verify });
    return { execute, sent, stored, close: () => sessions.close() };
  }

  it('leaves the operation only what the replay check and a slow seal left of the budget, stamped with the same deadline', async () => {
    const services = await overServicesTaking({ [SUBJECTS.orderTransaction.retrieveTransaction]: 1_000, [SUBJECTS.tokenVault.sealCard]: 7_000 });
    expect((await services.execute()).body).toEqual({ result: 'SUCCESS' });
    expect(services.sent.map(({ subject, timeoutMs, message }) => [subject, timeoutMs, message.deadline])).toEqual([
      [SUBJECTS.orderTransaction.retrieveTransaction, REQUEST_TIMEOUT_MS, DEADLINE],
      [SUBJECTS.tokenVault.sealCard, REQUEST_TIMEOUT_MS - 1_000, DEADLINE],
      // 10 s from the lock, not 10 s more: the whole request waits one NATS_REQUEST_TIMEOUT_MS.
      [SUBJECTS.orderTransaction.verify, REQUEST_TIMEOUT_MS - 8_000, DEADLINE],
    ]);
    services.close();
  });

  it('sends no operation once the budget is spent before it: SERVER_BUSY saying nothing was done, no money moved, the code given back', async () => {
    const services = await overServicesTaking({ [SUBJECTS.orderTransaction.retrieveTransaction]: 4_000, [SUBJECTS.tokenVault.sealCard]: 6_000 });
    const err = await services.execute().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(NotDeliveredError);
    // Not the timed-out operation's "may still have been processed": it was never sent.
    expect(err).toMatchObject({ code: 'SERVER_BUSY', httpStatus: 503, retryAfterSeconds: 1, explanation: GatewayError.serverBusy().explanation });
    expect(services.sent.map(({ subject }) => subject)).toEqual([SUBJECTS.orderTransaction.retrieveTransaction, SUBJECTS.tokenVault.sealCard]);
    expect(await services.stored()).toMatchObject({ version: 'aaaaaaaaaa', card: { sealed: 'sealed-with-code', securityCodePresent: true, securityCodeGivenIn: 'aaaaaaaaaa' } });
    services.close();
  });

  it('seals nothing once the replay check spent the budget: the code never taken, nothing sent after it', async () => {
    const services = await overServicesTaking({ [SUBJECTS.orderTransaction.retrieveTransaction]: REQUEST_TIMEOUT_MS });
    await expect(services.execute()).rejects.toMatchObject({ code: 'SERVER_BUSY', explanation: GatewayError.serverBusy().explanation });
    expect(services.sent.map(({ subject }) => subject)).toEqual([SUBJECTS.orderTransaction.retrieveTransaction]);
    expect(await services.stored()).toMatchObject({ card: { sealed: 'sealed-with-code', securityCodePresent: true } });
    services.close();
  });
});

describe('DispatchOrderOperation: a session that is gone (payment-sessions.md, amendment 2026-11-27)', () => {
  const sessionBody = { apiOperation: 'VERIFY', session: { id: SESSION }, sourceOfFunds: { type: 'CARD' } };
  const stored = { result: 'SUCCESS', transaction: { id: 'txn-1' } };

  /** Counts the lock's acquisitions: a request naming a gone session takes none. */
  function countingLocks(): { locks: LockService; acquired: () => number } {
    const locks = new MemoryLockService();
    const acquire = jest.spyOn(locks, 'acquire');
    return { locks, acquired: () => acquire.mock.calls.length };
  }

  it('answers the stored response the ledger finds for the body as sent, with no lock and no operation sent', async () => {
    const { locks, acquired } = countingLocks();
    const { dispatch, request } = dispatcherAnswering(async () => ({ body: stored }), locks);
    const result = await dispatch.execute({ ...command, body: sessionBody });
    expect(result).toEqual({ apiOperation: 'VERIFY', body: stored });
    expect(request).toHaveBeenCalledTimes(1);
    expect(request).toHaveBeenCalledWith(
      SUBJECTS.orderTransaction.findReplay,
      { envelope: expect.objectContaining({ merchant: command.merchant }), apiOperation: 'VERIFY', orderId: 'order-1', transactionId: 'txn-1', body: sessionBody, deadline: DEADLINE },
      { deadline: DEADLINE },
    );
    expect(acquired()).toBe(0);
  });

  it("answers the session's 400, as before, when the ledger holds no response for that body", async () => {
    const { dispatch, request } = dispatcherAnswering(async () => ({}));
    const err = await dispatch.execute({ ...command, body: sessionBody }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as GatewayError).toResponseBody()).toEqual({
      error: { cause: 'INVALID_REQUEST', explanation: expect.stringContaining('must name a session of this merchant'), field: 'session.id', validationType: 'INVALID' },
      result: 'ERROR',
    });
    expect(request.mock.calls.map(([subject]) => subject)).toEqual([SUBJECTS.orderTransaction.findReplay]);
  });

  it('answers SERVER_BUSY, never the operation, when no ledger serves the look-up yet (a roll in progress)', async () => {
    const { dispatch, request } = dispatcherAnswering((subject) => Promise.reject(new NotDeliveredError(subject)));
    await expect(dispatch.execute({ ...command, body: sessionBody })).rejects.toMatchObject({ code: 'SERVER_BUSY' });
    expect(request.mock.calls.map(([subject]) => subject)).toEqual([SUBJECTS.orderTransaction.findReplay]);
  });

  it('sends the body as sent beside the filled one when the session lives, and no look-up', async () => {
    const { dispatch, request, sessions } = dispatcherAnswering(async () => ({ body: stored }));
    await sessions.create(
      { id: SESSION, merchantId: command.merchant.id, version: 'aaaaaaaaaa', updateStatus: 'SUCCESS', fields: { order: { currency: 'USD' } }, createdAt: '2026-11-27T00:00:00.000Z', updatedAt: '2026-11-27T00:00:00.000Z' },
      { ttlMs: 60_000, expiredNoticeMs: 60_000 },
    );
    await dispatch.execute({ ...command, body: sessionBody });
    expect(request).toHaveBeenCalledTimes(1);
    expect(request.mock.calls[0][0]).toBe(SUBJECTS.orderTransaction.verify);
    expect(request.mock.calls[0][1]).toMatchObject({ body: { ...sessionBody, order: { currency: 'USD' } }, asSent: sessionBody, session: { id: SESSION } });
  });
});
