import { Money } from '@gateway/money';
import { TEST_CARD, TEST_CARD_SECOND, TEST_EXPIRY } from '@gateway/testing';
import type { AuthorizeCardRequest, CaptureRequest, RefundRequest, VerifyCardRequest, VoidRequest } from '../acquirer-requests';
import { parseCardExpiry } from '../card/card-expiry';
import { Pan } from '../card/pan';
import { SecurityCode } from '../card/security-code';
import { TestAcquirer } from '../test-acquirer/test-acquirer';
import {
  ACQUIRER_WIRE,
  AUTHORIZE_WIRE,
  CAPTURE_WIRE,
  CardDetails,
  Cardless,
  PAY_WIRE,
  REFUND_WIRE,
  VERIFY_WIRE,
  VOID_WIRE,
  withCardDetails,
} from './acquirer-wire.codec';
import { AcquirerWireError } from './wire-reader';

/** Through JSON, as NATS and the in-process bus carry it. */
const overTheWire = <T>(value: T): unknown => JSON.parse(JSON.stringify(value));

const details: CardDetails = {
  number: Pan.of(TEST_CARD),
  expiry: parseCardExpiry(TEST_EXPIRY.APPROVED.month, TEST_EXPIRY.APPROVED.year),
  securityCode: SecurityCode.of('1020'),
  nameOnCard: 'Ada Cardholder',
};

const cardlessVerify: Cardless<VerifyCardRequest> = {
  merchantId: 'TESTMERCHANT1',
  orderId: 'order-1',
  transactionId: 'verify-1',
  currency: 'USD',
  card: { sequenceNumber: '001', devicePayment: { eciIndicator: '05', onlinePaymentCryptogram: 'AAECAwQ=' } },
  cardholder: { billingAddress: { street: 'ADDRESS_MATCH', postcodeZip: '00001' }, firstName: 'Ada' },
  authentication: { threeDs2: { transactionStatus: 'Y', protocolVersion: '2.2.0' } },
  agreement: { id: 'AGR-1', type: 'RECURRING', numberOfPayments: 12 },
};

describe('acquirer wire codec', () => {
  describe('requests', () => {
    it('carries a VERIFY request without its card details and gets it back the same', () => {
      const decoded = VERIFY_WIRE.decodeRequest(overTheWire(VERIFY_WIRE.encodeRequest(cardlessVerify)));
      expect(decoded).toEqual(cardlessVerify);
    });

    it('leaves every card detail behind when handed a full card', () => {
      const full: VerifyCardRequest = withCardDetails(cardlessVerify, details);
      const text = JSON.stringify(VERIFY_WIRE.encodeRequest(full));
      for (const leak of [TEST_CARD, '512345', '0008', '1020', 'Ada Cardholder', '"expiry"', 'REDACTED', 'securityCode']) {
        expect(text).not.toContain(leak);
      }
      expect(VERIFY_WIRE.decodeRequest(JSON.parse(text))).toEqual(cardlessVerify);
    });

    it.each([
      ['number', { number: TEST_CARD }],
      ['expiry', { expiry: { month: 1, year: 39 } }],
      ['securityCode', { securityCode: '100' }],
      ['nameOnCard', { nameOnCard: 'Ada' }],
    ])('refuses a request whose card carries its %s, without echoing it', (field, extra) => {
      const wire = overTheWire(VERIFY_WIRE.encodeRequest(cardlessVerify)) as { card: object };
      wire.card = { ...wire.card, ...extra };
      expect(() => VERIFY_WIRE.decodeRequest(wire)).toThrow(new AcquirerWireError(`request.card.${field} is not allowed here`));
    });

    it('carries the EMV data, account funding and POS terminal data of a card operation and gets them back the same', () => {
      const presented: Cardless<VerifyCardRequest> = {
        ...cardlessVerify,
        card: { sequenceNumber: '001', emvData: '9F2608A1B2C3D4E5F60718' },
        accountFunding: { purpose: 'PAYROLL', senderIsRecipient: false, recipient: { firstName: 'Ada', lastName: 'Payee' } },
        posTerminal: { attended: 'ATTENDED', location: 'MERCHANT_TERMINAL_ON_PREMISES' },
      };
      expect(VERIFY_WIRE.decodeRequest(overTheWire(VERIFY_WIRE.encodeRequest(presented)))).toEqual(presented);
    });

    it('refuses a device payment carrying anything but its ECI and cryptogram, without echoing it', () => {
      const wire = overTheWire(VERIFY_WIRE.encodeRequest(cardlessVerify)) as { card: { devicePayment: object } };
      wire.card.devicePayment = { ...wire.card.devicePayment, number: TEST_CARD };
      expect(() => VERIFY_WIRE.decodeRequest(wire)).toThrow(new AcquirerWireError('request.card.devicePayment.number is not allowed here'));
    });

    it('leaves every card detail of a REFUND behind when handed a full card', () => {
      const refund = withCardDetails<RefundRequest>(
        { merchantId: 'M', orderId: 'o', transactionId: 't', amount: Money.of('0.30', 'USD'), card: { sequenceNumber: '001' } },
        details,
      );
      const text = JSON.stringify(REFUND_WIRE.encodeRequest(refund));
      for (const leak of [TEST_CARD, '1020', 'Ada Cardholder', '"expiry"', 'number']) {
        expect(text).not.toContain(leak);
      }
      expect(REFUND_WIRE.decodeRequest(JSON.parse(text)).card).toEqual({ sequenceNumber: '001' });
    });

    it("completes the card with the vault's details over any the request's card still held", () => {
      const stale = { ...details, number: Pan.of(TEST_CARD_SECOND), nameOnCard: 'Stale Name' };
      const request = withCardDetails<VerifyCardRequest>({ ...cardlessVerify, card: { ...cardlessVerify.card, ...stale } }, details);
      expect(request.card.number.reveal()).toBe(TEST_CARD);
      expect(request.card).toMatchObject({ nameOnCard: 'Ada Cardholder', sequenceNumber: '001' });
    });

    it('completes the request with the vault card, which the test acquirer then verifies', async () => {
      const request = withCardDetails(VERIFY_WIRE.decodeRequest(overTheWire(VERIFY_WIRE.encodeRequest(cardlessVerify))), details);
      expect(request.card).toMatchObject({ sequenceNumber: '001', devicePayment: { eciIndicator: '05' } });
      expect(request.card.number.reveal()).toBe(TEST_CARD);
      const result = await new TestAcquirer().verify(request);
      expect(result).toMatchObject({ gatewayCode: 'APPROVED', cardSecurityCode: { gatewayCode: 'NO_MATCH' }, avs: { gatewayCode: 'ADDRESS_MATCH' } });
    });

    it('carries a refund amount as an exact decimal string in its currency', () => {
      const refund: Cardless<RefundRequest> = {
        merchantId: 'TESTMERCHANT1',
        orderId: 'order-2',
        transactionId: 'refund-1',
        amount: Money.of('1234567890.125', 'BHD'),
        original: { acquirerTransactionId: 'MCC123456', receipt: '612345' },
      };
      const wire = overTheWire(REFUND_WIRE.encodeRequest(refund)) as { amount: unknown };
      expect(wire.amount).toEqual({ value: '1234567890.125', currency: 'BHD' });
      const decoded = REFUND_WIRE.decodeRequest(wire);
      expect(decoded.amount.equals(Money.of('1234567890.125', 'BHD'))).toBe(true);
      expect(decoded.original).toEqual(refund.original);
      expect(decoded.card).toBeUndefined();
    });

    it.each([
      ['a JS number', 10.5],
      ['more decimals than the currency has', { value: '10.5', currency: 'JPY' }],
      ['an unknown currency', { value: '10', currency: 'XXQ' }],
      ['not a decimal', { value: '1e3', currency: 'USD' }],
    ])('refuses an amount given as %s', (_label, amount) => {
      const wire = { merchantId: 'M', orderId: 'o', transactionId: 't', amount };
      expect(() => REFUND_WIRE.decodeRequest(wire)).toThrow(AcquirerWireError);
    });

    it('refuses a request missing its context or of the wrong shape', () => {
      expect(() => VERIFY_WIRE.decodeRequest([])).toThrow('request is not an object');
      expect(() => VERIFY_WIRE.decodeRequest({ merchantId: 'M', orderId: 'o', currency: 'USD' })).toThrow('request.transactionId is not a string');
      expect(() => VERIFY_WIRE.decodeRequest({ ...cardlessVerify, cardholder: 'Ada' })).toThrow('request.cardholder is not an object');
      expect(() => VERIFY_WIRE.decodeRequest({ ...cardlessVerify, amount: 1 })).toThrow('request.amount is not allowed here');
    });
  });

  describe('results', () => {
    it('carries a VERIFY result and gets it back the same, card masked', async () => {
      const result = await new TestAcquirer().verify(withCardDetails(cardlessVerify, details));
      const wire = overTheWire(VERIFY_WIRE.encodeResult(result));
      expect(JSON.stringify(wire)).not.toContain(TEST_CARD);
      expect(VERIFY_WIRE.decodeResult(wire)).toEqual(result);
    });

    it('carries a REFUND result with its amount exact', async () => {
      const result = await new TestAcquirer().refund(
        withCardDetails<RefundRequest>({ merchantId: 'M', orderId: 'o', transactionId: 't', amount: Money.of('0.30', 'USD') }, details),
      );
      const wire = overTheWire(REFUND_WIRE.encodeResult(result)) as { amount: unknown };
      expect(wire.amount).toEqual({ value: '0.3', currency: 'USD' });
      const decoded = REFUND_WIRE.decodeResult(wire);
      expect(decoded.amount.equals(Money.of('0.3', 'USD'))).toBe(true);
      expect({ ...decoded, amount: undefined }).toEqual({ ...result, amount: undefined });
    });

    it('refuses a result showing a card number unmasked, without echoing it', async () => {
      const result = await new TestAcquirer().verify(withCardDetails(cardlessVerify, details));
      const wire = overTheWire(VERIFY_WIRE.encodeResult(result)) as { card: { maskedNumber: string } };
      wire.card.maskedNumber = TEST_CARD;
      let error: unknown;
      try {
        VERIFY_WIRE.decodeResult(wire);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(AcquirerWireError);
      expect(String(error)).not.toContain(TEST_CARD);
    });

    it.each([
      ['more than the first six digits', '5123450xxxxx0008'],
      ['no digit masked', TEST_CARD.slice(0, 6) + TEST_CARD.slice(-4)],
    ])('refuses a result whose masked number shows %s', async (_what, maskedNumber) => {
      const result = await new TestAcquirer().verify(withCardDetails(cardlessVerify, details));
      const wire = overTheWire(VERIFY_WIRE.encodeResult(result)) as { card: { maskedNumber: string } };
      wire.card.maskedNumber = maskedNumber;
      expect(() => VERIFY_WIRE.decodeResult(wire)).toThrow(new AcquirerWireError('result.card.maskedNumber is not a masked card number'));
    });

    it('refuses a result whose card number is not even a string, without echoing it', async () => {
      const result = await new TestAcquirer().verify(withCardDetails(cardlessVerify, details));
      const wire = overTheWire(VERIFY_WIRE.encodeResult(result)) as { card: { maskedNumber: unknown } };
      wire.card.maskedNumber = Number(TEST_CARD);
      expect(() => VERIFY_WIRE.decodeResult(wire)).toThrow(new AcquirerWireError('result.card.maskedNumber is not a string'));
    });

    it('refuses a result with a funding method the BIN table does not have', async () => {
      const result = await new TestAcquirer().verify(withCardDetails(cardlessVerify, details));
      const wire = overTheWire(VERIFY_WIRE.encodeResult(result)) as { card: { fundingMethod: string } };
      wire.card.fundingMethod = 'PREPAID';
      expect(() => VERIFY_WIRE.decodeResult(wire)).toThrow('result.card.fundingMethod is not one of the known values');
    });

    it('refuses a result with a gateway code the acquirer cannot answer', async () => {
      const result = await new TestAcquirer().verify(withCardDetails(cardlessVerify, details));
      const wire = { ...(overTheWire(VERIFY_WIRE.encodeResult(result)) as object), gatewayCode: 'LOCK_FAILURE' };
      expect(() => VERIFY_WIRE.decodeResult(wire)).toThrow('result.gatewayCode is not one of the known values');
    });
  });
  describe('card payments', () => {
    const { currency: _currency, ...cardOperation } = cardlessVerify;
    const cardlessPayment: Cardless<AuthorizeCardRequest> = {
      ...cardOperation,
      transactionId: 'auth-1',
      amount: Money.of('1234567890.51', 'USD'),
      acceptPartialAmount: true,
    };

    it.each([
      ['AUTHORIZE', AUTHORIZE_WIRE],
      ['PAY', PAY_WIRE],
    ])('carries a %s request without its card details, the amount an exact decimal string', (_name, codec) => {
      const wire = overTheWire(codec.encodeRequest(withCardDetails(cardlessPayment, details)));
      const text = JSON.stringify(wire);
      for (const leak of [TEST_CARD, '1020', 'Ada Cardholder', '"expiry"']) {
        expect(text).not.toContain(leak);
      }
      expect(wire).toMatchObject({ amount: { value: '1234567890.51', currency: 'USD' }, acceptPartialAmount: true });
      const decoded = codec.decodeRequest(wire);
      expect(decoded.amount.equals(cardlessPayment.amount)).toBe(true);
      expect({ ...decoded, amount: undefined }).toEqual({ ...cardlessPayment, amount: undefined });
    });

    it('leaves acceptPartialAmount absent when the merchant did not say', () => {
      const { acceptPartialAmount: _accept, ...withoutAccept } = cardlessPayment;
      const wire = overTheWire(AUTHORIZE_WIRE.encodeRequest(withoutAccept)) as object;
      expect(wire).not.toHaveProperty('acceptPartialAmount');
      expect(AUTHORIZE_WIRE.decodeRequest(wire)).not.toHaveProperty('acceptPartialAmount');
    });

    it('refuses a payment whose card carries its number, an amount as a JS number, or a non-boolean acceptPartialAmount', () => {
      const wire = overTheWire(PAY_WIRE.encodeRequest(cardlessPayment)) as Record<string, unknown>;
      expect(() => PAY_WIRE.decodeRequest({ ...wire, card: { number: TEST_CARD } })).toThrow(new AcquirerWireError('request.card.number is not allowed here'));
      expect(() => PAY_WIRE.decodeRequest({ ...wire, amount: 10.51 })).toThrow('request.amount is not an object');
      expect(() => PAY_WIRE.decodeRequest({ ...wire, acceptPartialAmount: 'yes' })).toThrow('request.acceptPartialAmount is not a boolean');
      expect(() => PAY_WIRE.decodeRequest({ ...wire, currency: 'USD' })).toThrow('request.currency is not allowed here');
    });

    it('carries a partial approval with its approved and requested amounts exact, the card masked', async () => {
      const result = await new TestAcquirer().authorize(withCardDetails({ ...cardlessPayment, amount: Money.of('10.51', 'USD') }, details));
      expect(result.gatewayCode).toBe('PARTIALLY_APPROVED');
      const wire = overTheWire(AUTHORIZE_WIRE.encodeResult(result)) as Record<string, unknown>;
      expect(wire).toMatchObject({ approvedAmount: { value: '5.25', currency: 'USD' }, requestedAmount: { value: '10.51', currency: 'USD' } });
      expect(JSON.stringify(wire)).not.toContain(TEST_CARD);
      const decoded = AUTHORIZE_WIRE.decodeResult(wire);
      expect(decoded.approvedAmount.equals(Money.of('5.25', 'USD'))).toBe(true);
      expect(decoded.requestedAmount.equals(Money.of('10.51', 'USD'))).toBe(true);
      expect({ ...decoded, approvedAmount: undefined, requestedAmount: undefined }).toEqual({ ...result, approvedAmount: undefined, requestedAmount: undefined });
    });

    it('refuses a payment result whose amounts are numbers or in two currencies', async () => {
      const result = await new TestAcquirer().pay(withCardDetails(cardlessPayment, details));
      const wire = overTheWire(PAY_WIRE.encodeResult(result)) as Record<string, unknown>;
      expect(() => PAY_WIRE.decodeResult({ ...wire, approvedAmount: 5.25 })).toThrow('result.approvedAmount is not an object');
      expect(() => PAY_WIRE.decodeResult({ ...wire, approvedAmount: { value: '5', currency: 'EUR' } })).toThrow(
        'result.approvedAmount is not in the currency of result.requestedAmount',
      );
    });

    it('carries a CAPTURE request and result, amounts exact', async () => {
      const capture: CaptureRequest = {
        merchantId: 'TESTMERCHANT1',
        orderId: 'order-1',
        transactionId: 'capture-1',
        amount: Money.of('0.125', 'BHD'),
        authorization: { acquirerTransactionId: 'MCC0000021121', authorizationCode: '000003', receipt: '632510000001' },
      };
      const wire = overTheWire(CAPTURE_WIRE.encodeRequest(capture)) as Record<string, unknown>;
      expect(wire.amount).toEqual({ value: '0.125', currency: 'BHD' });
      const decoded = CAPTURE_WIRE.decodeRequest(wire);
      expect(decoded.amount.equals(capture.amount)).toBe(true);
      expect({ ...decoded, amount: undefined }).toEqual({ ...capture, amount: undefined });
      expect(() => CAPTURE_WIRE.decodeRequest({ ...wire, card: { sequenceNumber: '001' } })).toThrow('request.card is not allowed here');
      expect(() => CAPTURE_WIRE.decodeRequest({ ...wire, authorization: { acquirerTransactionId: 'x', pan: TEST_CARD } })).toThrow(
        'request.authorization.pan is not allowed here',
      );

      const result = await new TestAcquirer().capture(capture);
      const resultWire = overTheWire(CAPTURE_WIRE.encodeResult(result)) as Record<string, unknown>;
      expect(resultWire.amount).toEqual({ value: '0.125', currency: 'BHD' });
      const decodedResult = CAPTURE_WIRE.decodeResult(resultWire);
      expect(decodedResult.amount.equals(result.amount)).toBe(true);
      expect({ ...decodedResult, amount: undefined }).toEqual({ ...result, amount: undefined });
    });

    it('carries a VOID request and result', async () => {
      const voidRequest: VoidRequest = {
        merchantId: 'TESTMERCHANT1',
        orderId: 'order-1',
        transactionId: 'void-1',
        target: { acquirerTransactionId: '123456789012345' },
        targetType: 'CAPTURE',
      };
      const wire = overTheWire(VOID_WIRE.encodeRequest(voidRequest)) as Record<string, unknown>;
      expect(VOID_WIRE.decodeRequest(wire)).toEqual(voidRequest);
      expect(() => VOID_WIRE.decodeRequest({ ...wire, targetType: 'VERIFICATION' })).toThrow('request.targetType is not one of the known values');
      expect(() => VOID_WIRE.decodeRequest({ ...wire, amount: { value: '1', currency: 'USD' } })).toThrow('request.amount is not allowed here');

      const result = await new TestAcquirer().void(voidRequest);
      expect(VOID_WIRE.decodeResult(overTheWire(VOID_WIRE.encodeResult(result)))).toEqual(result);
    });

    it('has a codec for every acquirer operation', () => {
      expect(Object.keys(ACQUIRER_WIRE).sort()).toEqual(['AUTHORIZE', 'CAPTURE', 'PAY', 'REFUND', 'VERIFY', 'VOID']);
    });
  });
});
