import { randomBytes } from 'node:crypto';
import type { FindReplayMessage, JsonObject, RequestEnvelope } from '@gateway/contracts';
import { RECORDED_WITHOUT_REQUEST } from '@gateway/order-transaction/data-access';
import type { LedgerRepository, SeenOrder } from '@gateway/order-transaction/data-access';
import { RequestHasher } from '@gateway/platform';
import { FindReplay } from './find-replay.use-case';

const HASHER = RequestHasher.fromText(randomBytes(32).toString('base64'));

const SENT: JsonObject = {
  apiOperation: 'PAY',
  order: { amount: '10.00', currency: 'USD' },
  session: { id: 'SESSION0002776555072J41486L88' },
  sourceOfFunds: { type: 'CARD' },
};
const STORED_BODY: JsonObject = { result: 'SUCCESS', order: { id: 'o', amount: 10, currency: 'USD' } };

/** A FindReplay whose ledger read answers `stored` as the response stored for the operation (null: none, undefined: no order). */
function findReplay(stored: { requestHash: string; body: JsonObject } | null | undefined) {
  const findForBegin = jest.fn(async () =>
    stored === undefined ? null : ({ contents: { transactions: [], stored } } as unknown as SeenOrder),
  );
  return { use: new FindReplay({ findForBegin } as unknown as LedgerRepository, HASHER), findForBegin };
}

function message(body: JsonObject): FindReplayMessage {
  const orderId = randomBytes(5).toString('hex');
  return {
    envelope: { merchant: { id: 'TESTMERCHANT' } } as RequestEnvelope,
    apiOperation: 'PAY',
    orderId,
    transactionId: 't1',
    body,
  };
}

describe('FindReplay (an operation naming a session that is gone)', () => {
  it('answers the stored response of the same request, read for its order, transaction and operation', async () => {
    const { use, findForBegin } = findReplay({ requestHash: HASHER.hash(SENT), body: STORED_BODY });
    const sent = message(SENT);
    // Another correlationId is the same request (the spec calls it transient).
    expect(await use.execute({ ...sent, body: { ...SENT, correlationId: 'retry-2' } })).toEqual({
      body: STORED_BODY,
    });
    expect(findForBegin).toHaveBeenCalledWith('TESTMERCHANT', sent.orderId, 't1', 'PAY');
  });

  it("answers nothing for a request whose body differs from the stored one: the edge refuses it on the session, never with another request's result", async () => {
    const { use } = findReplay({ requestHash: HASHER.hash(SENT), body: STORED_BODY });
    const changed = { ...SENT, order: { amount: '1000.00', currency: 'USD' } };
    expect(await use.execute(message(changed))).toEqual({});
  });

  it("answers nothing for a transaction recorded from the acquirer's records, nor when nothing is stored or the order does not exist", async () => {
    expect(
      await findReplay({ requestHash: RECORDED_WITHOUT_REQUEST, body: STORED_BODY }).use.execute(
        message(SENT),
      ),
    ).toEqual({});
    expect(await findReplay(null).use.execute(message(SENT))).toEqual({});
    expect(await findReplay(undefined).use.execute(message(SENT))).toEqual({});
  });
});
