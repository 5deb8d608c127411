import { defaultMerchantSettings, GatewayError, RecordOperationMessage } from '@gateway/contracts';
import { parseRecordInput } from './record-input';

/** The PENDING reservation of a CAPTURE of `amount` USD with `taxAmount`, as an operation sends it to be recorded. */
function capture(amount: string, taxAmount: string): RecordOperationMessage {
  return {
    envelope: {
      merchant: { id: 'M1', mode: 'TEST', settings: defaultMerchantSettings() },
      apiVersion: 100,
      requestId: 'req-1',
      authMethod: 'PASSWORD',
      fencingToken: '7',
    },
    orderId: 'o1',
    transactionId: 'c1',
    apiOperation: 'CAPTURE',
    requestHash: 'h-c1',
    mode: 'CREATE',
    order: { currency: 'USD' },
    transaction: {
      type: 'CAPTURE',
      amount,
      currency: 'USD',
      taxAmount,
      result: 'PENDING',
      gatewayCode: 'PENDING',
      targetTransactionId: 'a1',
    },
    response: {},
  };
}

describe('parseRecordInput: the tax recorded with a transaction is part of its amount', () => {
  it('records a tax of the whole amount, compared as decimals', () => {
    const input = parseRecordInput(capture('10.00', '10'));
    expect([input.transaction.amount.toFixed(), input.transaction.taxAmount?.toFixed()]).toEqual([
      '10.00',
      '10.00',
    ]);
  });

  it('refuses a tax a cent above the amount, on transaction.taxAmount, whoever sent it', () => {
    let refused: unknown;
    try {
      parseRecordInput(capture('10.00', '10.01'));
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(GatewayError);
    expect(refused).toMatchObject({
      field: 'transaction.taxAmount',
      validationType: 'INVALID',
      explanation: "Value '10.01' is invalid. The tax is part of the amount: at most 10.00 USD.",
    });
  });
});
