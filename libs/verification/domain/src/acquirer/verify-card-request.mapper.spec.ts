import { inspect } from 'node:util';
import { GatewayError } from '@gateway/contracts';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { parseEmvRequest } from '../rules/emv-request.rule';
import { buildVerifyCardRequest, toAcquirerCard } from './verify-card-request.mapper';

function errorOf(run: () => unknown): GatewayError {
  try {
    run();
  } catch (err) {
    return err as GatewayError;
  }
  throw new Error('expected an error');
}

describe('the acquirer request of a VERIFY', () => {
  it('carries the card as Pan and SecurityCode, which print masked', () => {
    const card = toAcquirerCard({
      number: TEST_CARD,
      expiry: TEST_EXPIRY.DECLINED,
      securityCode: '102',
      nameOnCard: 'A Payer',
    });
    expect(card.number.reveal()).toBe(TEST_CARD);
    expect(card.securityCode?.reveal()).toBe('102');
    expect(card.expiry).toEqual({ month: 5, year: 39 });
    expect(JSON.stringify(card)).not.toContain(TEST_CARD);
    expect(inspect(card)).not.toContain(TEST_CARD);
    expect(JSON.stringify(card)).not.toContain('102');
  });

  it('needs a card number and an expiry', () => {
    expect(errorOf(() => toAcquirerCard({ expiry: TEST_EXPIRY.APPROVED }))).toMatchObject({
      field: 'sourceOfFunds.provided.card.number',
      validationType: 'MISSING',
    });
    expect(errorOf(() => toAcquirerCard({ number: TEST_CARD }))).toMatchObject({
      field: 'sourceOfFunds.provided.card.expiry',
      validationType: 'MISSING',
    });
  });

  it('rejects a merged card value that is not valid, without echoing it', () => {
    const error = errorOf(() =>
      toAcquirerCard({ number: `${TEST_CARD}12345`, expiry: TEST_EXPIRY.APPROVED }),
    );
    expect(error).toMatchObject({ field: 'sourceOfFunds.provided.card.number', validationType: 'INVALID' });
    expect(error.explanation).not.toContain(TEST_CARD);
  });

  it('sends the EMV data without the PAN and expiry tags', () => {
    const emv = parseEmvRequest(`5A08${TEST_CARD}9F2608AABBCCDDEEFF0011`);
    expect(toAcquirerCard({ number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED }, emv).emvData).toBe(
      '9F2608AABBCCDDEEFF0011',
    );
  });

  it('passes billing address, customer, 3-D Secure, agreement, account funding and terminal data to the acquirer', () => {
    const card = toAcquirerCard({ number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED });
    const request = buildVerifyCardRequest({
      merchantId: 'TESTMERCHANT1',
      orderId: 'order-1',
      transactionId: 'verify-1',
      card,
      posTerminal: { attended: 'ATTENDED' },
      request: {
        apiOperation: 'VERIFY',
        order: { currency: 'EUR' },
        sourceOfFunds: { type: 'CARD' },
        billing: { address: { street: 'NO_MATCH', postcodeZip: '10001' } },
        customer: { firstName: 'A', identification: { type: 'PASSPORT', value: 'X123', country: 'DEU' } },
        authentication: {
          '3ds': { acsEci: '05' },
          '3ds2': { transactionStatus: 'Y' },
          transactionId: 'auth-1',
        },
        agreement: { id: 'agr-1', type: 'UNSCHEDULED' },
        accountFunding: { purpose: 'PAYROLL', senderType: 'PERSON' },
      },
    });
    expect(request).toEqual({
      merchantId: 'TESTMERCHANT1',
      orderId: 'order-1',
      transactionId: 'verify-1',
      currency: 'EUR',
      card,
      cardholder: {
        billingAddress: { street: 'NO_MATCH', postcodeZip: '10001' },
        firstName: 'A',
        identification: { type: 'PASSPORT', value: 'X123', country: 'DEU' },
      },
      authentication: {
        threeDs: { acsEci: '05' },
        threeDs2: { transactionStatus: 'Y' },
        transactionId: 'auth-1',
      },
      agreement: { id: 'agr-1', type: 'UNSCHEDULED' },
      accountFunding: { purpose: 'PAYROLL', senderType: 'PERSON' },
      posTerminal: { attended: 'ATTENDED' },
    });
  });
});
