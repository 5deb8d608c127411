import { defaultMerchantSettings, GatewayError, RefundRequest, SaveTokenRequest } from '@gateway/contracts';
import { MalformedMessageError } from './parse-message';
import { parseOrderOperationMessage, parseTokenOperationMessage } from './parse-operation-message';

const envelope = {
  merchant: { id: 'TESTMERCHANT', mode: 'TEST', settings: defaultMerchantSettings() },
  apiVersion: 29,
  requestId: 'req-1',
  authMethod: 'PASSWORD',
  fencingToken: '7',
};
const refund = { apiOperation: 'REFUND', transaction: { amount: '5.00', currency: 'USD' } };
const message = (body: unknown) => ({ envelope, apiOperation: 'REFUND', orderId: 'o-1', transactionId: 't-1', body });

describe('parseOrderOperationMessage', () => {
  it('hands the service the typed request of its operation', () => {
    const received = parseOrderOperationMessage(message(refund), 'REFUND');
    expect(received.request).toBeInstanceOf(RefundRequest);
    expect(received.request.transaction.amount).toBe('5.00');
    expect(received.message.envelope.fencingToken).toBe('7');
  });

  it('refuses a body that did not pass validation as the merchant error it is', () => {
    const err = (() => {
      try {
        parseOrderOperationMessage(message({ ...refund, transaction: { amount: '-5', currency: 'USD' } }), 'REFUND');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({ code: 'INVALID_FIELD', field: 'transaction.amount', validationType: 'INVALID' });
  });

  it('treats a broken envelope as a fault between our processes', () => {
    expect(() => parseOrderOperationMessage({ ...message(refund), envelope: { ...envelope, requestId: '' } }, 'REFUND')).toThrow(
      MalformedMessageError,
    );
  });
});

describe('parseTokenOperationMessage', () => {
  it('hands the vault a SaveTokenRequest and refuses apiOperation', () => {
    const body = { sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008' } } } };
    expect(parseTokenOperationMessage({ envelope, tokenId: '9123', body }).request).toBeInstanceOf(SaveTokenRequest);
    expect(() => parseTokenOperationMessage({ envelope, tokenId: '9123', body: { ...body, apiOperation: 'X' } })).toThrow(GatewayError);
  });
});
