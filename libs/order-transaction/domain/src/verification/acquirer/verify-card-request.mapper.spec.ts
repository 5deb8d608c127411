import { inspect } from 'node:util';
import { withCardDetails } from '@gateway/acquirer';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { refusal } from '../../card-operation/testing-orders';
import { parseEmvRequest } from '../rules/emv-request.rule';
import {
  buildVerifyCardRequest,
  cardPresentment,
  explicitCardDetails,
  explicitCardFields,
  hasCompleteExplicitCard,
} from './verify-card-request.mapper';

describe('the acquirer request of a VERIFY', () => {
  it('carries the card as Pan and SecurityCode, which print masked', () => {
    const card = explicitCardDetails({
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
    expect(refusal(() => explicitCardDetails(undefined))).toMatchObject({
      field: 'sourceOfFunds.provided.card.number',
      validationType: 'MISSING',
    });
    expect(refusal(() => explicitCardDetails({ expiry: TEST_EXPIRY.APPROVED }))).toMatchObject({
      field: 'sourceOfFunds.provided.card.number',
      validationType: 'MISSING',
    });
    expect(refusal(() => explicitCardDetails({ number: TEST_CARD }))).toMatchObject({
      field: 'sourceOfFunds.provided.card.expiry',
      validationType: 'MISSING',
    });
  });

  it('rejects a merged card value that is not valid, without echoing it', () => {
    const error = refusal(() =>
      explicitCardDetails({ number: `${TEST_CARD}12345`, expiry: TEST_EXPIRY.APPROVED }),
    );
    expect(error).toMatchObject({ field: 'sourceOfFunds.provided.card.number', validationType: 'INVALID' });
    expect(error.explanation).not.toContain(TEST_CARD);
  });

  it('sends the EMV data without the PAN and expiry tags, and the sequence number tag 5F34 carries', () => {
    const emv = parseEmvRequest(`5A08${TEST_CARD}5F3401029F2608AABBCCDDEEFF0011`);
    expect(cardPresentment({ devicePayment: { eciIndicator: '05' } }, emv)).toEqual({
      sequenceNumber: '2',
      emvData: '5F3401029F2608AABBCCDDEEFF0011',
      devicePayment: { eciIndicator: '05' },
    });
    expect(cardPresentment({ number: TEST_CARD }, undefined)).toBeUndefined();
  });

  it('uses explicit card fields alone once they give number and expiry', () => {
    expect(hasCompleteExplicitCard({ number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED })).toBe(true);
    expect(hasCompleteExplicitCard({ number: TEST_CARD })).toBe(false);
    expect(hasCompleteExplicitCard({ expiry: TEST_EXPIRY.APPROVED, securityCode: '100' })).toBe(false);
    expect(hasCompleteExplicitCard(undefined)).toBe(false);
  });

  it('hands the token vault the explicit values that complete a stored card, and nothing when there are none', () => {
    expect(explicitCardFields({ expiry: TEST_EXPIRY.DECLINED, securityCode: '101', cardType: 'X' })).toEqual({
      expiry: { month: '5', year: '39' },
      securityCode: '101',
    });
    expect(explicitCardFields({ cardType: 'X' })).toBeUndefined();
    expect(explicitCardFields(undefined)).toBeUndefined();
  });

  it('passes billing address, customer, 3-D Secure, agreement, account funding and terminal data to the acquirer', () => {
    const card = explicitCardDetails({ number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED });
    const cardless = buildVerifyCardRequest({
      merchantId: 'TESTMERCHANT1',
      orderId: 'order-1',
      transactionId: 'verify-1',
      presentment: { sequenceNumber: '1' },
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
    expect(cardless.card).toEqual({ sequenceNumber: '1' });
    expect(JSON.stringify(cardless)).not.toContain(TEST_CARD);
    const request = withCardDetails(cardless, card);
    expect(request).toEqual({
      merchantId: 'TESTMERCHANT1',
      orderId: 'order-1',
      transactionId: 'verify-1',
      currency: 'EUR',
      card: { ...card, sequenceNumber: '1' },
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
