import { inspect } from 'node:util';
import { Money } from '@gateway/money';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import type {
  AuthorizeCardRequest,
  CaptureRequest,
  InquiryRequest,
  VerifyCardRequest,
  VoidRequest,
} from '../acquirer-requests';
import { parseCardExpiry } from '../card/card-expiry';
import { Pan } from '../card/pan';
import { SecurityCode } from '../card/security-code';
import { TEST_ACQUIRER_ID, TestAcquirer } from './test-acquirer';

const NOW = new Date('2026-11-21T10:15:30.000Z');
const FUTURE = { month: '12', year: '35' };

function acquirer(options: { now?: Date; latencyMs?: number } = {}): TestAcquirer {
  let next = 0;
  // Deterministic "random" digits: 1, 2, 3... so formats can be asserted exactly.
  const randomDigits = (count: number) => String(++next).padStart(count, '0');
  return new TestAcquirer({ now: () => options.now ?? NOW, randomDigits, latencyMs: options.latencyMs });
}

function verifyRequest(
  expiry: { month: string; year: string } = TEST_EXPIRY.APPROVED,
  extra: { securityCode?: string; street?: string; postcodeZip?: string } = {},
): VerifyCardRequest {
  const billingAddress =
    extra.street !== undefined || extra.postcodeZip !== undefined
      ? { street: extra.street, postcodeZip: extra.postcodeZip }
      : undefined;
  return {
    merchantId: 'TESTMERCHANT1',
    orderId: 'order-1',
    transactionId: 'verify-1',
    currency: 'USD',
    card: {
      number: Pan.of(TEST_CARD),
      expiry: parseCardExpiry(expiry.month, expiry.year),
      ...(extra.securityCode ? { securityCode: SecurityCode.of(extra.securityCode) } : {}),
    },
    ...(billingAddress ? { cardholder: { billingAddress } } : {}),
  };
}

function paymentRequest(
  amount: string,
  extra: {
    currency?: string;
    acceptPartialAmount?: boolean;
    expiry?: { month: string; year: string };
    securityCode?: string;
    street?: string;
  } = {},
): AuthorizeCardRequest {
  const { card, cardholder, merchantId, orderId } = verifyRequest(extra.expiry, extra);
  return {
    merchantId,
    orderId,
    transactionId: 'pay-1',
    card,
    ...(cardholder ? { cardholder } : {}),
    amount: Money.of(amount, extra.currency ?? 'USD'),
    ...(extra.acceptPartialAmount !== undefined ? { acceptPartialAmount: extra.acceptPartialAmount } : {}),
  };
}

const ISSUED_REFERENCE = 'MCC0000021121';

function captureRequest(acquirerTransactionId = ISSUED_REFERENCE, amount = '10.00'): CaptureRequest {
  return {
    merchantId: 'TESTMERCHANT1',
    orderId: 'order-1',
    transactionId: 'capture-1',
    amount: Money.of(amount, 'USD'),
    authorization: { acquirerTransactionId, authorizationCode: '000003' },
  };
}

function voidRequest(
  targetType: VoidRequest['targetType'],
  acquirerTransactionId = ISSUED_REFERENCE,
): VoidRequest {
  return {
    merchantId: 'TESTMERCHANT1',
    orderId: 'order-1',
    transactionId: 'void-1',
    target: { acquirerTransactionId },
    targetType,
  };
}

describe('TestAcquirer', () => {
  describe('expiry matrix (response.gatewayCode)', () => {
    it.each([
      ['01/39', TEST_EXPIRY.APPROVED, 'APPROVED', 'SUCCESS', '00', 'Approved'],
      ['05/39', TEST_EXPIRY.DECLINED, 'DECLINED', 'FAILURE', '05', 'Do not honour'],
      ['04/27', TEST_EXPIRY.EXPIRED_CARD, 'EXPIRED_CARD', 'FAILURE', '54', 'Expired card'],
      ['08/28', TEST_EXPIRY.TIMED_OUT, 'TIMED_OUT', 'FAILURE', '68', 'Response received too late'],
      [
        '01/37',
        TEST_EXPIRY.ACQUIRER_SYSTEM_ERROR,
        'ACQUIRER_SYSTEM_ERROR',
        'FAILURE',
        '96',
        'System malfunction',
      ],
      ['02/37', TEST_EXPIRY.UNSPECIFIED_FAILURE, 'UNSPECIFIED_FAILURE', 'FAILURE', '06', 'Error'],
    ])(
      'answers expiry %s with %s (result %s)',
      async (_label, expiry, gatewayCode, result, acquirerCode, acquirerMessage) => {
        const answer = await acquirer().verify(verifyRequest(expiry));
        expect(answer).toMatchObject({ gatewayCode, result, acquirerCode, acquirerMessage });
        expect(answer.authorizationResponse.responseCode).toBe(acquirerCode);
      },
    );

    it('answers expiry 05/37 with UNKNOWN (result UNKNOWN) and no acquirer response code', async () => {
      const answer = await acquirer().verify(verifyRequest(TEST_EXPIRY.UNKNOWN));
      expect(answer.gatewayCode).toBe('UNKNOWN');
      expect(answer.result).toBe('UNKNOWN');
      expect(answer).not.toHaveProperty('acquirerCode');
      expect(answer).not.toHaveProperty('acquirerMessage');
      expect(answer.authorizationResponse).not.toHaveProperty('responseCode');
    });

    it('accepts the month with or without a leading zero', async () => {
      expect((await acquirer().verify(verifyRequest({ month: '05', year: '39' }))).gatewayCode).toBe(
        'DECLINED',
      );
    });

    it('approves any other future expiry', async () => {
      for (const expiry of [FUTURE, { month: '2', year: '39' }, { month: '12', year: '26' }]) {
        expect((await acquirer().verify(verifyRequest(expiry))).gatewayCode).toBe('APPROVED');
      }
    });

    it('answers EXPIRED_CARD for any other expiry in the past, valid through the end of its month', async () => {
      expect((await acquirer().verify(verifyRequest({ month: '10', year: '26' }))).gatewayCode).toBe(
        'EXPIRED_CARD',
      );
      expect((await acquirer().verify(verifyRequest({ month: '12', year: '25' }))).gatewayCode).toBe(
        'EXPIRED_CARD',
      );
      expect((await acquirer().verify(verifyRequest({ month: '11', year: '26' }))).gatewayCode).toBe(
        'APPROVED',
      );
    });

    it('keeps the magic expiries after their dates have passed', async () => {
      const later = acquirer({ now: new Date('2030-01-01T00:00:00.000Z') });
      expect((await later.verify(verifyRequest(TEST_EXPIRY.TIMED_OUT))).gatewayCode).toBe('TIMED_OUT');
      expect((await later.verify(verifyRequest(TEST_EXPIRY.EXPIRED_CARD))).gatewayCode).toBe('EXPIRED_CARD');
    });
  });

  describe('security code matrix (response.cardSecurityCode)', () => {
    it.each([
      ['100', 'MATCH', 'M'],
      ['101', 'NOT_PROCESSED', 'P'],
      ['102', 'NO_MATCH', 'N'],
      ['1000', 'MATCH', 'M'],
      ['1010', 'NOT_PROCESSED', 'P'],
      ['1020', 'NO_MATCH', 'N'],
      ['123', 'MATCH', 'M'],
      ['4321', 'MATCH', 'M'],
    ])('answers security code %s with %s', async (securityCode, gatewayCode, acquirerCode) => {
      const answer = await acquirer().verify(verifyRequest(TEST_EXPIRY.APPROVED, { securityCode }));
      expect(answer.cardSecurityCode).toEqual({ gatewayCode, acquirerCode });
      expect(answer.gatewayCode).toBe('APPROVED');
    });

    it('answers NOT_PRESENT when no security code was given', async () => {
      expect((await acquirer().verify(verifyRequest())).cardSecurityCode).toEqual({
        gatewayCode: 'NOT_PRESENT',
      });
    });

    it('answers NOT_PROCESSED when the issuer never answered', async () => {
      for (const expiry of [TEST_EXPIRY.TIMED_OUT, TEST_EXPIRY.ACQUIRER_SYSTEM_ERROR, TEST_EXPIRY.UNKNOWN]) {
        const answer = await acquirer().verify(verifyRequest(expiry, { securityCode: '102' }));
        expect(answer.cardSecurityCode.gatewayCode).toBe('NOT_PROCESSED');
      }
    });

    it('reports the security code result on a decline too', async () => {
      const answer = await acquirer().verify(verifyRequest(TEST_EXPIRY.DECLINED, { securityCode: '102' }));
      expect(answer.cardSecurityCode.gatewayCode).toBe('NO_MATCH');
    });
  });

  describe('authorization response fields', () => {
    it('fills the authorizationResponse group, transaction.acquirer, receipt and approval code', async () => {
      const answer = await acquirer().verify(verifyRequest());
      // randomDigits yields 000001 (STAN), 000002 (Banknet reference), 000003 (approval code).
      expect(answer.authorizationResponse).toEqual({
        commercialCard: 'NOT_A_COMMERCIAL_CARD',
        date: '1121',
        financialNetworkCode: 'MCC',
        processingCode: '000000',
        responseCode: '00',
        stan: '000001',
        time: '101530',
        transactionIdentifier: 'MCC0000021121',
      });
      expect(answer.acquirer).toEqual({
        id: TEST_ACQUIRER_ID,
        merchantId: 'TESTMERCHANT1',
        transactionId: 'MCC0000021121',
        date: '1121',
        time: '101530',
      });
      // Retrieval reference: year 6, day 325, hour 10, STAN.
      expect(answer.receipt).toBe('632510000001');
      expect(answer.authorizationCode).toBe('000003');
    });

    it('gives an approval code only to approved transactions', async () => {
      const answer = await acquirer().verify(verifyRequest(TEST_EXPIRY.DECLINED));
      expect(answer).not.toHaveProperty('authorizationCode');
    });

    it('draws real random digits when none are injected', async () => {
      const answer = await new TestAcquirer().verify(verifyRequest());
      expect(answer.authorizationResponse.stan).toMatch(/^[0-9]{6}$/);
      expect(answer.authorizationCode).toMatch(/^[0-9]{6}$/);
      expect(answer.authorizationResponse.transactionIdentifier).toMatch(/^MCC[0-9]{6}[0-9]{4}$/);
      expect(answer.receipt).toMatch(/^[0-9]{12}$/);
    });
  });

  describe('card data', () => {
    it('returns the card masked 6.4 with brand, scheme and funding method', async () => {
      const answer = await acquirer().verify(verifyRequest());
      expect(answer.card).toEqual({
        maskedNumber: '512345xxxxxx0008',
        brand: 'MASTERCARD',
        scheme: 'MASTERCARD',
        fundingMethod: 'CREDIT',
        expiry: { month: 1, year: 39 },
      });
    });

    it('never carries the full card number or the security code in a request or result that can be logged', async () => {
      const request = verifyRequest(TEST_EXPIRY.APPROVED, { securityCode: '100' });
      const answer = await acquirer().verify(request);
      for (const text of [
        JSON.stringify(request),
        inspect(request, { depth: 10 }),
        JSON.stringify(answer),
        inspect(answer, { depth: 10 }),
      ]) {
        expect(text).not.toContain(TEST_CARD);
        expect(text).not.toMatch(/"100"|'100'/);
      }
    });
  });

  describe('latency', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    async function settledAfter(promise: Promise<unknown>, ms: number): Promise<boolean> {
      let settled = false;
      void promise.then(() => (settled = true));
      await jest.advanceTimersByTimeAsync(ms);
      return settled;
    }

    it('answers at once by default', async () => {
      expect(await settledAfter(acquirer().verify(verifyRequest()), 0)).toBe(true);
    });

    it('holds every call for the configured latency', async () => {
      const slow = acquirer({ latencyMs: 500 });
      const call = slow.verify(verifyRequest());
      expect(await settledAfter(call, 499)).toBe(false);
      expect(await settledAfter(call, 1)).toBe(true);
    });

    it('takes the merchant latency with withLatency and a per-call override over both', async () => {
      const merchant = acquirer().withLatency(300);
      expect(await settledAfter(merchant.verify(verifyRequest()), 299)).toBe(false);
      expect(await settledAfter(merchant.verify(verifyRequest(), { latencyMs: 0 }), 0)).toBe(true);
      const overridden = merchant.verify(verifyRequest(), { latencyMs: 1_000 });
      expect(await settledAfter(overridden, 999)).toBe(false);
      expect(await settledAfter(overridden, 1)).toBe(true);
    });

    it('delays refunds as well', async () => {
      const call = acquirer({ latencyMs: 200 }).refund({
        merchantId: 'TESTMERCHANT1',
        orderId: 'order-1',
        transactionId: 'refund-1',
        amount: Money.of('1.00', 'USD'),
      });
      expect(await settledAfter(call, 199)).toBe(false);
      expect(await settledAfter(call, 1)).toBe(true);
    });
  });

  describe('refunds', () => {
    const base = {
      merchantId: 'TESTMERCHANT1',
      orderId: 'order-1',
      transactionId: 'refund-1',
      amount: Money.of('10.50', 'USD'),
    };

    it('approves a linked refund without a card, with a refund processing code', async () => {
      const answer = await acquirer().refund({
        ...base,
        original: { acquirerTransactionId: 'MCC0000021121' },
      });
      expect(answer).toMatchObject({ gatewayCode: 'APPROVED', result: 'SUCCESS', acquirerCode: '00' });
      expect(answer.amount.equals(Money.of('10.5', 'USD'))).toBe(true);
      expect(answer.authorizationResponse.processingCode).toBe('200000');
      expect(answer).not.toHaveProperty('card');
    });

    it('answers a refund to a card by the card expiry and returns the card masked', async () => {
      const card = {
        number: Pan.of(TEST_CARD),
        expiry: parseCardExpiry(TEST_EXPIRY.DECLINED.month, TEST_EXPIRY.DECLINED.year),
      };
      const answer = await acquirer().refund({ ...base, card });
      expect(answer).toMatchObject({ gatewayCode: 'DECLINED', result: 'FAILURE' });
      expect(answer.card?.maskedNumber).toBe('512345xxxxxx0008');
      expect(JSON.stringify(answer)).not.toContain(TEST_CARD);
    });
  });
  describe('AUTHORIZE and PAY', () => {
    const operations = [
      ['AUTHORIZE', (a: TestAcquirer, r: AuthorizeCardRequest) => a.authorize(r)],
      ['PAY', (a: TestAcquirer, r: AuthorizeCardRequest) => a.pay(r)],
    ] as const;

    describe.each(operations)('%s', (_name, send) => {
      it.each([
        [TEST_EXPIRY.APPROVED, 'APPROVED', 'SUCCESS', '00'],
        [TEST_EXPIRY.DECLINED, 'DECLINED', 'FAILURE', '05'],
        [TEST_EXPIRY.EXPIRED_CARD, 'EXPIRED_CARD', 'FAILURE', '54'],
        [TEST_EXPIRY.TIMED_OUT, 'TIMED_OUT', 'FAILURE', '68'],
        [TEST_EXPIRY.ACQUIRER_SYSTEM_ERROR, 'ACQUIRER_SYSTEM_ERROR', 'FAILURE', '96'],
        [TEST_EXPIRY.UNSPECIFIED_FAILURE, 'UNSPECIFIED_FAILURE', 'FAILURE', '06'],
      ])(
        'answers expiry %o with %s (result %s) for the full amount',
        async (expiry, gatewayCode, result, acquirerCode) => {
          const answer = await send(acquirer(), paymentRequest('25.00', { expiry }));
          expect(answer).toMatchObject({ gatewayCode, result, acquirerCode });
          expect(answer.authorizationResponse.responseCode).toBe(acquirerCode);
          expect(answer.approvedAmount.equals(Money.of('25', 'USD'))).toBe(true);
          expect(answer.requestedAmount.equals(Money.of('25', 'USD'))).toBe(true);
        },
      );

      it('answers UNKNOWN (result UNKNOWN) without an acquirer response code for expiry 05/37', async () => {
        const answer = await send(acquirer(), paymentRequest('25.00', { expiry: TEST_EXPIRY.UNKNOWN }));
        expect(answer).toMatchObject({ gatewayCode: 'UNKNOWN', result: 'UNKNOWN' });
        expect(answer).not.toHaveProperty('acquirerCode');
        expect(answer).not.toHaveProperty('authorizationCode');
      });

      it('checks the security code and address as a verification does', async () => {
        const answer = await send(
          acquirer(),
          paymentRequest('25.00', { securityCode: '102', street: 'NAME_MATCH' }),
        );
        expect(answer.cardSecurityCode).toEqual({ gatewayCode: 'NO_MATCH', acquirerCode: 'N' });
        expect(answer.avs).toEqual({ gatewayCode: 'NAME_MATCH', acquirerCode: 'K' });
        const timedOut = await send(
          acquirer(),
          paymentRequest('25.00', {
            expiry: TEST_EXPIRY.TIMED_OUT,
            securityCode: '102',
            street: 'NAME_MATCH',
          }),
        );
        expect(timedOut.cardSecurityCode.gatewayCode).toBe('NOT_PROCESSED');
        expect(timedOut.avs.gatewayCode).toBe('SERVICE_NOT_AVAILABLE_RETRY');
      });

      it('gives an approval code, the masked card, the acquirer data and a goods-and-services processing code', async () => {
        const answer = await send(acquirer(), paymentRequest('25.00'));
        // randomDigits yields 000001 (STAN), 000002 (Banknet reference), 000003 (approval code).
        expect(answer.authorizationCode).toBe('000003');
        expect(answer.authorizationResponse).toMatchObject({
          processingCode: '000000',
          stan: '000001',
          transactionIdentifier: 'MCC0000021121',
        });
        expect(answer.acquirer).toEqual({
          id: TEST_ACQUIRER_ID,
          merchantId: 'TESTMERCHANT1',
          transactionId: 'MCC0000021121',
          date: '1121',
          time: '101530',
        });
        expect(answer.receipt).toBe('632510000001');
        expect(answer.card.maskedNumber).toBe('512345xxxxxx0008');
        expect(JSON.stringify(answer)).not.toContain(TEST_CARD);
      });

      describe('partial approvals (amount ending in 51 minor units)', () => {
        it.each([
          ['10.51', 'USD', '5.25'],
          ['0.51', 'USD', '0.25'],
          ['1051', 'JPY', '525'],
          ['1.051', 'BHD', '0.525'],
          ['12345678.51', 'EUR', '6172839.25'],
        ])(
          'approves half of %s %s, rounded down to %s, when the merchant accepts a partial amount',
          async (amount, currency, approved) => {
            const answer = await send(
              acquirer(),
              paymentRequest(amount, { currency, acceptPartialAmount: true }),
            );
            expect(answer).toMatchObject({
              gatewayCode: 'PARTIALLY_APPROVED',
              result: 'SUCCESS',
              acquirerCode: '10',
              acquirerMessage: 'Approved for partial amount',
            });
            expect(answer.approvedAmount.toFixed()).toBe(Money.of(approved, currency).toFixed());
            expect(answer.approvedAmount.currency).toBe(currency);
            expect(answer.requestedAmount.equals(Money.of(amount, currency))).toBe(true);
            expect(answer.authorizationCode).toBe('000003');
          },
        );

        it.each([[undefined], [false]])(
          'declines with INSUFFICIENT_FUNDS when acceptPartialAmount is %s',
          async (acceptPartialAmount) => {
            const answer = await send(acquirer(), paymentRequest('10.51', { acceptPartialAmount }));
            expect(answer).toMatchObject({
              gatewayCode: 'INSUFFICIENT_FUNDS',
              result: 'FAILURE',
              acquirerCode: '51',
              acquirerMessage: 'Insufficient funds',
            });
            expect(answer.authorizationResponse.responseCode).toBe('51');
            expect(answer).not.toHaveProperty('authorizationCode');
            expect(answer.approvedAmount.equals(Money.of('10.51', 'USD'))).toBe(true);
          },
        );

        it('lets the card decide first: a declined card stays declined whatever the amount', async () => {
          const answer = await send(
            acquirer(),
            paymentRequest('10.51', { expiry: TEST_EXPIRY.DECLINED, acceptPartialAmount: true }),
          );
          expect(answer.gatewayCode).toBe('DECLINED');
          expect(answer.approvedAmount.equals(Money.of('10.51', 'USD'))).toBe(true);
        });

        it.each([
          ['10.50', 'USD'],
          ['51.00', 'USD'],
          ['10.15', 'USD'],
          ['1050', 'JPY'],
          ['1.510', 'BHD'],
        ])('approves %s %s in full: its minor units do not end in 51', async (amount, currency) => {
          const answer = await send(
            acquirer(),
            paymentRequest(amount, { currency, acceptPartialAmount: true }),
          );
          expect(answer.gatewayCode).toBe('APPROVED');
          expect(answer.approvedAmount.equals(Money.of(amount, currency))).toBe(true);
        });
      });
    });
  });

  describe('CAPTURE', () => {
    it('captures the amount asked of an authorisation it issued, whatever that amount', async () => {
      const answer = await acquirer().capture(captureRequest(ISSUED_REFERENCE, '999999.99'));
      expect(answer).toMatchObject({ gatewayCode: 'APPROVED', result: 'SUCCESS', acquirerCode: '00' });
      expect(answer.amount.equals(Money.of('999999.99', 'USD'))).toBe(true);
      expect(answer.authorizationResponse).toMatchObject({
        processingCode: '000000',
        responseCode: '00',
        stan: '000001',
      });
      expect(answer.acquirer).toMatchObject({ id: TEST_ACQUIRER_ID, merchantId: 'TESTMERCHANT1' });
      expect(answer.receipt).toMatch(/^[0-9]{12}$/);
    });

    it('knows both forms of reference it issues: Banknet and fifteen digits', async () => {
      expect((await acquirer().capture(captureRequest('123456789012345'))).gatewayCode).toBe('APPROVED');
    });

    it.each([['ACQ-1'], [''], ['MCC12345'], ['1234567890123456']])(
      'declines a capture of %p, a reference it never issued',
      async (reference) => {
        const answer = await acquirer().capture(captureRequest(reference));
        expect(answer).toMatchObject({
          gatewayCode: 'DECLINED',
          result: 'FAILURE',
          acquirerCode: '25',
          acquirerMessage: 'Unable to locate record',
        });
      },
    );
  });

  describe('VOID', () => {
    it.each([
      ['AUTHORIZATION', '000000'],
      ['CAPTURE', '000000'],
      ['PAYMENT', '000000'],
      ['REFUND', '200000'],
    ] as const)(
      'voids a %s it issued, with the processing code of what it undoes',
      async (targetType, processingCode) => {
        const answer = await acquirer().void(voidRequest(targetType));
        expect(answer).toMatchObject({ gatewayCode: 'APPROVED', result: 'SUCCESS', acquirerCode: '00' });
        expect(answer.authorizationResponse.processingCode).toBe(processingCode);
      },
    );

    it('declines a void of a reference it never issued', async () => {
      expect(await acquirer().void(voidRequest('AUTHORIZATION', 'nope'))).toMatchObject({
        gatewayCode: 'DECLINED',
        acquirerCode: '25',
      });
    });
  });

  describe('INQUIRE (an earlier call whose answer was lost)', () => {
    const inquiry = (operation: InquiryRequest['operation'], reference?: string): InquiryRequest => ({
      merchantId: 'TESTMERCHANT1',
      orderId: 'order-1',
      transactionId: 'pay-1',
      operation,
      ...(reference !== undefined ? { reference: { acquirerTransactionId: reference } } : {}),
    });

    it('finds the 05/37 payment it answered UNKNOWN APPROVED: the issuer approved, the answer was lost', async () => {
      const test = acquirer();
      const unknown = await test.pay(paymentRequest('10.00', { expiry: TEST_EXPIRY.UNKNOWN }));
      expect(unknown.gatewayCode).toBe('UNKNOWN');
      const found = await test.inquire(inquiry('PAY', unknown.acquirer.transactionId));
      expect(found).toEqual({
        gatewayCode: 'APPROVED',
        result: 'SUCCESS',
        acquirerCode: '00',
        acquirerMessage: 'Approved',
        acquirerTransactionId: unknown.acquirer.transactionId,
        authorizationCode: expect.stringMatching(/^[0-9]{6}$/),
      });
    });

    it('gives an approval code only for what the issuer decides (VERIFY, AUTHORIZE, PAY)', async () => {
      for (const operation of ['REFUND', 'CAPTURE', 'VOID'] as const) {
        const found = await acquirer().inquire(inquiry(operation, ISSUED_REFERENCE));
        expect(found).toMatchObject({ gatewayCode: 'APPROVED', acquirerTransactionId: ISSUED_REFERENCE });
        expect(found.authorizationCode).toBeUndefined();
      }
    });

    it.each([[undefined], ['nope']])('has no record of a call without a reference it issued (%p): DECLINED, 25', async (reference) => {
      expect(await acquirer().inquire(inquiry('AUTHORIZE', reference))).toEqual({
        gatewayCode: 'DECLINED',
        result: 'FAILURE',
        acquirerCode: '25',
        acquirerMessage: 'Unable to locate record',
      });
    });
  });

  describe('latency of the card payment operations', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it.each([
      ['authorize', (a: TestAcquirer) => a.authorize(paymentRequest('1.00'))],
      ['pay', (a: TestAcquirer) => a.pay(paymentRequest('1.00'))],
      ['capture', (a: TestAcquirer) => a.capture(captureRequest())],
      ['void', (a: TestAcquirer) => a.void(voidRequest('AUTHORIZATION'))],
    ])('holds %s for the merchant latency, or the per-call override', async (_name, call) => {
      let settled = false;
      void call(acquirer().withLatency(400)).then(() => (settled = true));
      await jest.advanceTimersByTimeAsync(399);
      expect(settled).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      expect(settled).toBe(true);
    });

    it('lets a call override the merchant latency', async () => {
      let settled = false;
      void acquirer({ latencyMs: 5_000 })
        .pay(paymentRequest('1.00'), { latencyMs: 0 })
        .then(() => (settled = true));
      await jest.advanceTimersByTimeAsync(0);
      expect(settled).toBe(true);
    });
  });
});
