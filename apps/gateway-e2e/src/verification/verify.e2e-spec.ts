import { randomBytes } from 'node:crypto';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { ApiResponse, call, createMerchant, TestMerchant } from '../support/gateway-client';
import { acquirerCalls } from '../support/metrics';

type Json = Record<string, any>;

/**
 * VERIFY end to end (issue 4), over HTTP through the edge, the verification service, the
 * test acquirer, the order ledger and (for tokens) the vault, in both profiles. The test
 * acquirer's magic values are the documented ones (docs/test-acquirer.md), written out here
 * as a merchant reads them.
 */
const MASKED = '512345xxxxxx0008';

function card(expiry: { month: string; year: string } = TEST_EXPIRY.APPROVED, extra: Json = {}): Json {
  return { number: TEST_CARD, expiry: { ...expiry }, ...extra };
}

function verifyBody(extra: Json = {}, cardFields: Json = card()): Json {
  return {
    apiOperation: 'VERIFY',
    order: { currency: 'USD' },
    sourceOfFunds: { type: 'CARD', provided: { card: cardFields } },
    ...extra,
  };
}

const newOrderId = () => `order-${randomBytes(6).toString('hex')}`;

async function verify(
  merchant: TestMerchant,
  body: Json,
  orderId = newOrderId(),
  transactionId = 'verify-1',
): Promise<ApiResponse<Json>> {
  return call<Json>('PUT', `${merchant.base()}/order/${orderId}/transaction/${transactionId}`, {
    authorization: merchant.authorization,
    body,
  });
}

/** The app whose /metrics counts VERIFY's acquirer calls: the ledger's, which serves VERIFY (the gateway's in the standalone profile). */
const VERIFY_APP = 'order-transaction';

describe('VERIFY', () => {
  let merchant: TestMerchant;

  beforeAll(async () => {
    merchant = await createMerchant();
  });

  it('answers an approved verification: 201, a zero VERIFICATION on a VERIFIED order, the card masked with brand, scheme and funding', async () => {
    const orderId = newOrderId();
    const response = await verify(
      merchant,
      verifyBody({ correlationId: 'corr-1' }, card(TEST_EXPIRY.APPROVED, { securityCode: '100' })),
      orderId,
    );

    expect(response.status).toBe(201);
    expect(response.text).not.toContain(TEST_CARD);
    expect(response.body).toMatchObject({
      merchant: merchant.id,
      version: '100',
      correlationId: 'corr-1',
      result: 'SUCCESS',
      order: {
        id: orderId,
        amount: 0,
        currency: 'USD',
        status: 'VERIFIED',
        totalAuthorizedAmount: 0,
        totalCapturedAmount: 0,
        totalRefundedAmount: 0,
      },
      transaction: {
        id: 'verify-1',
        type: 'VERIFICATION',
        amount: 0,
        currency: 'USD',
        acquirer: { id: 'TEST_ACQUIRER' },
      },
      response: { gatewayCode: 'APPROVED', acquirerCode: '00', cardSecurityCode: { gatewayCode: 'MATCH' } },
      sourceOfFunds: {
        type: 'CARD',
        provided: {
          card: {
            number: MASKED,
            brand: 'MASTERCARD',
            scheme: 'MASTERCARD',
            fundingMethod: 'CREDIT',
            expiry: { month: '1', year: '39' },
          },
        },
      },
    });
    expect(response.body.timeOfRecord).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // Keys in alphabetical order at every level, as the real gateway sends them.
    expect(Object.keys(response.body)).toEqual([...Object.keys(response.body)].sort());
  });

  it("takes the merchant's own references and descriptive fields, answers them back, and keeps the order's for its retrieval", async () => {
    const orderId = newOrderId();
    const response = await verify(
      merchant,
      verifyBody({
        order: { currency: 'USD', reference: 'shop-order-77', description: 'Card on file check', custom: { channel: 'app' } },
        transaction: { reference: 'check-1', source: 'INTERNET' },
        customer: { email: 'payer@example.com', phone: '+44 20 7946 0000' },
        device: { browser: 'Mozilla/5.0', ipAddress: '203.0.113.7' },
      }),
      orderId,
    );
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      result: 'SUCCESS',
      order: { reference: 'shop-order-77', description: 'Card on file check', custom: { channel: 'app' } },
      transaction: { reference: 'check-1', source: 'INTERNET', type: 'VERIFICATION' },
      customer: { phone: '+44 20 7946 0000' },
      device: { browser: 'Mozilla/5.0', ipAddress: '203.0.113.7' },
    });
    const order = await call<Json>('GET', `${merchant.base()}/order/${orderId}`, { authorization: merchant.authorization });
    expect(order.body).toMatchObject({ id: orderId, reference: 'shop-order-77', description: 'Card on file check', status: 'VERIFIED' });
  });

  it('takes order.purchaseType ACCOUNT_FUNDING with its account funding details, answers it back and keeps it on the order', async () => {
    const orderId = newOrderId();
    const response = await verify(
      merchant,
      verifyBody({
        order: { currency: 'USD', purchaseType: 'ACCOUNT_FUNDING' },
        accountFunding: { purpose: 'MERCHANT_SETTLEMENT', senderIsRecipient: true, senderType: 'COMMERCIAL_ORGANIZATION' },
      }),
      orderId,
    );
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      result: 'SUCCESS',
      order: { id: orderId, purchaseType: 'ACCOUNT_FUNDING' },
      accountFunding: { purpose: 'MERCHANT_SETTLEMENT', senderIsRecipient: true, senderType: 'COMMERCIAL_ORGANIZATION' },
    });
    const order = await call<Json>('GET', `${merchant.base()}/order/${orderId}`, { authorization: merchant.authorization });
    expect(order.body).toMatchObject({ id: orderId, purchaseType: 'ACCOUNT_FUNDING', status: 'VERIFIED' });
  });

  describe('the expiry matrix decides gatewayCode and result', () => {
    it.each([
      ['01/39', TEST_EXPIRY.APPROVED, 'APPROVED', 'SUCCESS'],
      ['05/39', TEST_EXPIRY.DECLINED, 'DECLINED', 'FAILURE'],
      ['04/27', TEST_EXPIRY.EXPIRED_CARD, 'EXPIRED_CARD', 'FAILURE'],
      ['08/28', TEST_EXPIRY.TIMED_OUT, 'TIMED_OUT', 'FAILURE'],
      ['01/37', TEST_EXPIRY.ACQUIRER_SYSTEM_ERROR, 'ACQUIRER_SYSTEM_ERROR', 'FAILURE'],
      ['02/37', TEST_EXPIRY.UNSPECIFIED_FAILURE, 'UNSPECIFIED_FAILURE', 'FAILURE'],
      ['05/37', TEST_EXPIRY.UNKNOWN, 'UNKNOWN', 'UNKNOWN'],
      ['another future expiry (12/35)', { month: '12', year: '35' }, 'APPROVED', 'SUCCESS'],
      ['another past expiry (01/20)', { month: '01', year: '20' }, 'EXPIRED_CARD', 'FAILURE'],
    ])('%s gives %s with result %s', async (_label, expiry, gatewayCode, result) => {
      const response = await verify(merchant, verifyBody({}, card(expiry)));
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({
        result,
        response: { gatewayCode },
        transaction: { type: 'VERIFICATION' },
      });
      expect(Boolean(response.body.transaction.authorizationCode)).toBe(gatewayCode === 'APPROVED');
    });
  });

  describe('the security code decides the CSC result', () => {
    it.each([
      ['100', 'MATCH'],
      ['101', 'NOT_PROCESSED'],
      ['102', 'NO_MATCH'],
      ['1000', 'MATCH'],
      ['1010', 'NOT_PROCESSED'],
      ['1020', 'NO_MATCH'],
      ['357', 'MATCH'],
      [undefined, 'NOT_PRESENT'],
    ])('security code %s gives %s', async (securityCode, cscCode) => {
      const response = await verify(
        merchant,
        verifyBody({}, card(TEST_EXPIRY.APPROVED, securityCode === undefined ? {} : { securityCode })),
      );
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({
        result: 'SUCCESS',
        response: { gatewayCode: 'APPROVED', cardSecurityCode: { gatewayCode: cscCode } },
      });
      // Never echoed, never stored.
      expect(response.text).not.toContain('securityCode');
    });
  });

  describe('the documented AVS table decides the AVS code', () => {
    const TABLE: [string, string, string | undefined][] = [
      ['ADDRESS_MATCH', '00001', 'A'],
      ['ADDRESS_ZIP_MATCH', '00002', 'Y'],
      ['NAME_ADDRESS_MATCH', '00003', 'O'],
      ['NAME_MATCH', '00004', 'K'],
      ['NAME_ZIP_MATCH', '00005', 'L'],
      ['NOT_AVAILABLE', '00006', 'U'],
      ['NOT_REQUESTED', '00007', undefined],
      ['NOT_VERIFIED', '00008', 'G'],
      ['NO_MATCH', '00009', 'N'],
      ['SERVICE_NOT_AVAILABLE_RETRY', '00010', 'R'],
      ['SERVICE_NOT_SUPPORTED', '00011', 'S'],
      ['ZIP_MATCH', '00012', 'Z'],
    ];
    const avsOf = (response: ApiResponse<Json>) => response.body.response.cardholderVerification.avs;

    it.each(TABLE)(
      'a street naming %s, or postcode %s, gives it (acquirer code %s)',
      async (code, postcode, acquirerCode) => {
        const byStreet = await verify(
          merchant,
          verifyBody({ billing: { address: { street: code.toLowerCase().replace(/_/g, ' ') } } }),
        );
        const byPostcode = await verify(
          merchant,
          verifyBody({ billing: { address: { street: '1 Test Street', postcodeZip: postcode } } }),
        );
        for (const response of [byStreet, byPostcode]) {
          expect(response.status).toBe(201);
          expect(avsOf(response)).toEqual(
            acquirerCode ? { gatewayCode: code, acquirerCode } : { gatewayCode: code },
          );
        }
      },
    );

    it.each([
      ['street and postcode', 'ADDRESS_ZIP_MATCH', { street: '1 Test Street', postcodeZip: '10001' }],
      ['street only', 'ADDRESS_MATCH', { street: '1 Test Street' }],
      ['postcode only', 'ZIP_MATCH', { postcodeZip: '10001' }],
      ['neither', 'NOT_REQUESTED', { city: 'Springfield' }],
    ])('without a magic value, %s gives %s', async (_label, code, address) => {
      const response = await verify(merchant, verifyBody({ billing: { address } }));
      expect(avsOf(response).gatewayCode).toBe(code);
    });
  });

  describe('transaction filtering on the AVS code', () => {
    const rule = (avsResponseCode: string, action: string) => ({ avsResponseCode, action });
    const filtered = (rules: Json[]) => ({
      billing: { address: { street: 'NO_MATCH' } },
      order: { currency: 'USD', transactionFiltering: { avsResponseCodeRules: rules } },
    });

    it('turns an approved verification into DECLINED_AVS on a REJECT rule for the returned code', async () => {
      const orderId = newOrderId();
      const response = await verify(merchant, verifyBody(filtered([rule('NO_MATCH', 'REJECT')])), orderId);
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({
        result: 'FAILURE',
        response: {
          gatewayCode: 'DECLINED_AVS',
          acquirerCode: '00',
          cardholderVerification: { avs: { gatewayCode: 'NO_MATCH' } },
        },
        risk: { response: { gatewayCode: 'REJECTED' } },
      });
      const order = await call<Json>('GET', `${merchant.base()}/order/${orderId}`, {
        authorization: merchant.authorization,
      });
      expect(order.body.transaction[0]).toMatchObject({
        result: 'FAILURE',
        response: { gatewayCode: 'DECLINED_AVS' },
      });
    });

    it('leaves the approval alone when the REJECT rule names another code, and records a REVIEW', async () => {
      const other = await verify(merchant, verifyBody(filtered([rule('ZIP_MATCH', 'REJECT')])));
      expect(other.body).toMatchObject({ result: 'SUCCESS', response: { gatewayCode: 'APPROVED' } });
      expect(other.body.risk).toBeUndefined();
      const review = await verify(merchant, verifyBody(filtered([rule('NO_MATCH', 'REVIEW')])));
      expect(review.body).toMatchObject({
        result: 'SUCCESS',
        response: { gatewayCode: 'APPROVED' },
        risk: { response: { gatewayCode: 'REVIEW_REQUIRED' } },
      });
    });

    it("applies the merchant profile's rules unless the request overrides the same code", async () => {
      const strict = await createMerchant({
        'transactionFiltering.avsResponseCodeRules': [rule('NO_MATCH', 'REJECT')],
      });
      const byProfile = await verify(strict, verifyBody({ billing: { address: { street: 'NO_MATCH' } } }));
      expect(byProfile.body).toMatchObject({ result: 'FAILURE', response: { gatewayCode: 'DECLINED_AVS' } });
      const overridden = await verify(strict, verifyBody(filtered([rule('NO_MATCH', 'NO_ACTION')])));
      expect(overridden.body).toMatchObject({ result: 'SUCCESS', response: { gatewayCode: 'APPROVED' } });
    });

    it('does not touch a declined verification', async () => {
      const response = await verify(
        merchant,
        verifyBody(filtered([rule('NO_MATCH', 'REJECT')]), card(TEST_EXPIRY.DECLINED)),
      );
      expect(response.body).toMatchObject({ result: 'FAILURE', response: { gatewayCode: 'DECLINED' } });
    });
  });

  describe('shipping.address.sameAsBilling is derived', () => {
    const billing = {
      street: '12 Main St.',
      street2: 'Apt 4',
      city: 'Springfield',
      postcodeZip: '10001',
      country: 'USA',
    };

    it.each([
      ['equal addresses', 'SAME', { ...billing }],
      [
        'addresses differing only in punctuation and spacing',
        'SAME',
        { ...billing, street: '12, Main St', street2: 'Apt. 4', postcodeZip: '100-01' },
      ],
      ['different addresses', 'DIFFERENT', { ...billing, city: 'Shelbyville' }],
    ])('%s give %s', async (_label, sameAsBilling, shippingAddress) => {
      const response = await verify(
        merchant,
        verifyBody({ billing: { address: billing }, shipping: { address: shippingAddress } }),
      );
      expect(response.status).toBe(201);
      expect(response.body.shipping.address.sameAsBilling).toBe(sameAsBilling);
    });

    it.each([
      ['only a billing address', { billing: { address: billing } }],
      ['only a shipping address', { shipping: { address: billing } }],
    ])('%s gives UNKNOWN', async (_label, addresses) => {
      const response = await verify(merchant, verifyBody(addresses));
      expect(response.body.shipping.address.sameAsBilling).toBe('UNKNOWN');
    });

    it('keeps a value the merchant sent', async () => {
      const response = await verify(
        merchant,
        verifyBody({
          billing: { address: billing },
          shipping: { address: { ...billing, sameAsBilling: 'DIFFERENT' } },
        }),
      );
      expect(response.body.shipping.address.sameAsBilling).toBe('DIFFERENT');
    });
  });

  describe('replays', () => {
    it('answers the same ids and body with the identical stored response and no second acquirer call', async () => {
      const orderId = newOrderId();
      const body = verifyBody(
        { billing: { address: { street: 'NAME_MATCH' } } },
        card(TEST_EXPIRY.APPROVED, { securityCode: '101' }),
      );
      const before = await acquirerCalls(VERIFY_APP);
      const first = await verify(merchant, body, orderId);
      const afterFirst = await acquirerCalls(VERIFY_APP);
      const replay = await verify(merchant, body, orderId);
      const afterReplay = await acquirerCalls(VERIFY_APP);

      expect(first.status).toBe(201);
      expect(afterFirst - before).toBe(1);
      expect(replay.status).toBe(201);
      expect(replay.text).toBe(first.text);
      expect(afterReplay).toBe(afterFirst);
    });

    it('replays a failed verification as well, and with another correlationId only that changes', async () => {
      const orderId = newOrderId();
      const body = verifyBody({}, card(TEST_EXPIRY.DECLINED));
      const first = await verify(merchant, { ...body, correlationId: 'first' }, orderId);
      const before = await acquirerCalls(VERIFY_APP);
      const replay = await verify(merchant, { ...body, correlationId: 'second' }, orderId);
      expect(await acquirerCalls(VERIFY_APP)).toBe(before);
      expect(replay.body).toEqual({ ...first.body, correlationId: 'second' });
      expect(replay.body).toMatchObject({ result: 'FAILURE', response: { gatewayCode: 'DECLINED' } });
    });

    it('refuses the same ids with a different body with a 400, calling no acquirer', async () => {
      const orderId = newOrderId();
      await verify(merchant, verifyBody(), orderId);
      const before = await acquirerCalls(VERIFY_APP);
      const changed = await verify(
        merchant,
        verifyBody({}, card(TEST_EXPIRY.APPROVED, { securityCode: '102' })),
        orderId,
      );
      expect(changed.status).toBe(400);
      expect(changed.body).toMatchObject({ error: { cause: 'INVALID_REQUEST' }, result: 'ERROR' });
      expect(await acquirerCalls(VERIFY_APP)).toBe(before);
    });
  });

  describe('per-order serialization', () => {
    it('answers exactly one of two concurrent verifies on one order with LOCK_FAILURE while the acquirer holds the other', async () => {
      // 2 s of acquirer latency holds the order far longer than the edge's 100 ms lock wait,
      // and far longer than the two requests take to arrive even on a loaded machine.
      const slow = await createMerchant({ 'testAcquirer.latencyMs': 2_000 });
      const orderId = newOrderId();
      const responses = await Promise.all([
        verify(slow, verifyBody(), orderId, 'verify-a'),
        verify(slow, verifyBody(), orderId, 'verify-b'),
      ]);

      expect(responses.map((r) => r.status)).toEqual([201, 201]);
      const locked = responses.filter((r) => r.body.response?.gatewayCode === 'LOCK_FAILURE');
      const approved = responses.filter((r) => r.body.response?.gatewayCode === 'APPROVED');
      expect(locked).toHaveLength(1);
      expect(approved).toHaveLength(1);
      // The order did not exist yet when it was refused: the request's currency, totals zero,
      // and the acquirer the merchant's card operations go to.
      expect(locked[0].body).toMatchObject({
        result: 'FAILURE',
        order: { id: orderId, currency: 'USD', totalAuthorizedAmount: 0, totalCapturedAmount: 0, totalRefundedAmount: 0 },
        transaction: { type: 'VERIFICATION', amount: 0, currency: 'USD', acquirer: { id: 'TEST_ACQUIRER' } },
      });

      // The refused request created nothing: the order holds one verification, and the
      // refused transaction id may be used again.
      const order = await call<Json>('GET', `${slow.base()}/order/${orderId}`, {
        authorization: slow.authorization,
      });
      expect(order.body.transaction).toHaveLength(1);
      expect(order.body.transaction[0].transaction.id).toBe(approved[0].body.transaction.id);
      const retried = await verify(slow, verifyBody(), orderId, locked[0].body.transaction.id);
      expect(retried.body).toMatchObject({ result: 'SUCCESS', response: { gatewayCode: 'APPROVED' } });
    });
  });

  describe('the order ledger', () => {
    it('holds the VERIFICATION, the order VERIFIED, with the agreement, addresses and customer kept on the order', async () => {
      const orderId = newOrderId();
      const agreement = {
        id: 'agr-1',
        type: 'RECURRING',
        amountVariability: 'FIXED',
        startDate: '2039-01-01',
        minimumAmountPerPayment: '5.50',
        paymentFrequency: 'MONTHLY',
      };
      const put = await verify(
        merchant,
        verifyBody({
          agreement,
          billing: { address: { street: '1 Test Street', country: 'USA' } },
          customer: {
            firstName: 'Ada',
            lastName: 'Lovelace',
            identification: { type: 'PASSPORT', value: 'X1234', country: 'GBR' },
          },
        }),
        orderId,
      );
      expect(put.body).toMatchObject({ agreement: { ...agreement, minimumAmountPerPayment: 5.5 } });

      const order = await call<Json>('GET', `${merchant.base()}/order/${orderId}`, {
        authorization: merchant.authorization,
      });
      expect(order.status).toBe(200);
      expect(order.text).not.toContain(TEST_CARD);
      expect(order.body).toMatchObject({
        id: orderId,
        status: 'VERIFIED',
        amount: 0,
        currency: 'USD',
        result: 'SUCCESS',
        agreement: { id: 'agr-1', type: 'RECURRING', minimumAmountPerPayment: 5.5 },
        billing: { address: { street: '1 Test Street', country: 'USA' } },
        customer: { firstName: 'Ada', identification: { type: 'PASSPORT' } },
      });
      expect(order.body.transaction).toHaveLength(1);
      expect(order.body.transaction[0]).toMatchObject({
        transaction: { id: 'verify-1', type: 'VERIFICATION', amount: 0 },
        result: 'SUCCESS',
        sourceOfFunds: { provided: { card: { number: MASKED } } },
      });

      const transaction = await call<Json>(
        'GET',
        `${merchant.base()}/order/${orderId}/transaction/verify-1`,
        { authorization: merchant.authorization },
      );
      const { lastUpdatedTime: _a, ...putOrder } = put.body.order;
      expect(transaction.body).toMatchObject({ ...put.body, order: putOrder });
    });

    it('keeps the agreement its first verification established: a later one naming only its id answers the type and terms reused', async () => {
      // An id of its own per run: the merchant's agreements outlive its orders.
      const id = `agr-${randomBytes(6).toString('hex')}`;
      const agreement = { id, type: 'INSTALLMENT', numberOfPayments: 6, maximumAmountPerPayment: '120.50', paymentFrequency: 'MONTHLY' };
      const first = await verify(merchant, verifyBody({ agreement }));
      expect(first.status).toBe(201);
      const later = await verify(merchant, verifyBody({ agreement: { id } }));
      expect(later.status).toBe(201);
      expect(later.body.agreement).toEqual({ ...agreement, maximumAmountPerPayment: 120.5 });
      const changed = await verify(merchant, verifyBody({ agreement: { id, type: 'RECURRING', amountVariability: 'FIXED' } }));
      expect(changed.status).toBe(400);
      expect(changed.body).toMatchObject({ error: { field: 'agreement.type', validationType: 'INVALID' }, result: 'ERROR' });
    });

    it('leaves an order whose only verification was declined FAILED, and a later approval makes it VERIFIED', async () => {
      const orderId = newOrderId();
      const declined = await verify(
        merchant,
        verifyBody({}, card(TEST_EXPIRY.DECLINED)),
        orderId,
        'verify-1',
      );
      expect(declined.body.order.status).toBe('FAILED');
      const approved = await verify(merchant, verifyBody(), orderId, 'verify-2');
      expect(approved.body.order.status).toBe('VERIFIED');
    });

    it('refuses another currency on an existing order before calling the acquirer', async () => {
      const orderId = newOrderId();
      await verify(merchant, verifyBody(), orderId, 'verify-1');
      const before = await acquirerCalls(VERIFY_APP);
      const response = await verify(
        merchant,
        verifyBody({ order: { currency: 'EUR' } }),
        orderId,
        'verify-2',
      );
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ error: { field: 'order.currency', validationType: 'INVALID' } });
      expect(await acquirerCalls(VERIFY_APP)).toBe(before);
    });
  });

  describe('the rest of the request', () => {
    it('passes external 3-D Secure, account funding, terminal and EMV data and echoes what the verify response shows', async () => {
      // EMV: PAN (5A) and expiry (5F24) fill the card, 5F34 the sequence number, 9F35 22
      // (attended) and 9F1C the terminal; the response omits the PAN and expiry tags.
      const lane = Buffer.from('LANE0007', 'latin1').toString('hex').toUpperCase();
      const emvRequest = `5A08${TEST_CARD}5F24033901315F3401019F3501229F1C08${lane}9F2608AABBCCDDEEFF0011`;
      const response = await verify(merchant, {
        apiOperation: 'VERIFY',
        order: { currency: 'USD', taxStatus: 'NOT_EXEMPT' },
        sourceOfFunds: { type: 'CARD', provided: { card: { emvRequest, nameOnCard: 'Ada Lovelace' } } },
        authentication: {
          '3ds': {
            acsEci: '05',
            authenticationToken: 'AAACBllleHchZTBWIGV4AAAAAAA=',
            transactionId: 'xid-1',
          },
          '3ds2': {
            acsTransactionId: '5d4fa7d6-53e2-4f45-9b3c-d1f0c4a3a3e1',
            protocolVersion: '2.2.0',
            transactionStatus: 'Y',
          },
        },
        accountFunding: {
          purpose: 'PAYROLL',
          senderType: 'PERSON',
          recipient: { firstName: 'Bo', identification: { type: 'OTHER', value: 'R1' } },
        },
        customer: { identification: { type: 'DRIVERS_LICENSE', value: 'D123', country: 'USA' } },
        posTerminal: { cardPresenceCapability: 'CARD_PRESENT', panEntryMode: 'CHIP' },
      });
      expect(response.status).toBe(201);
      expect(response.text).not.toContain(TEST_CARD);
      expect(response.body).toMatchObject({
        result: 'SUCCESS',
        sourceOfFunds: {
          provided: {
            card: {
              number: MASKED,
              expiry: { month: '1', year: '39' },
              nameOnCard: 'Ada Lovelace',
              sequenceNumber: '001',
              emvRequest: `5F3401019F3501229F1C08${lane}9F2608AABBCCDDEEFF0011`,
            },
          },
        },
        authentication: {
          '3ds': { acsEci: '05', transactionId: 'xid-1' },
          '3ds2': {
            acsTransactionId: '5d4fa7d6-53e2-4f45-9b3c-d1f0c4a3a3e1',
            protocolVersion: '2.2.0',
            transactionStatus: 'Y',
            methodSupported: 'NOT_SUPPORTED',
          },
        },
        accountFunding: { purpose: 'PAYROLL', senderType: 'PERSON', recipient: { firstName: 'Bo' } },
        customer: { identification: { type: 'DRIVERS_LICENSE' } },
        posTerminal: {
          attended: 'ATTENDED',
          lane: 'LANE0007',
          cardPresenceCapability: 'CARD_PRESENT',
          panEntryMode: 'CHIP',
        },
        order: { taxStatus: 'NOT_EXEMPT' },
      });
    });

    it('refuses an agreement starting in the past, naming the field', async () => {
      const response = await verify(
        merchant,
        verifyBody({ agreement: { id: 'agr-2', startDate: '2020-01-01' } }),
      );
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        error: { field: 'agreement.startDate', validationType: 'INVALID' },
        result: 'ERROR',
      });
    });

    it('asks for amountVariability on a recurring agreement', async () => {
      const response = await verify(merchant, verifyBody({ agreement: { id: 'agr-3', type: 'RECURRING' } }));
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        error: { field: 'agreement.amountVariability', validationType: 'MISSING' },
      });
    });

    it('refuses a card type for a card that offers no card type selection', async () => {
      const response = await verify(
        merchant,
        verifyBody({}, card(TEST_EXPIRY.APPROVED, { cardType: 'CREDIT' })),
      );
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        error: { field: 'sourceOfFunds.provided.card.cardType', validationType: 'UNSUPPORTED' },
      });
    });

    it('refuses an EMV tag outside the allowed list without echoing the data', async () => {
      const response = await verify(
        merchant,
        verifyBody({}, card(TEST_EXPIRY.APPROVED, { emvRequest: `5700${'9F2608AABBCCDDEEFF0011'}` })),
      );
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        error: { field: 'sourceOfFunds.provided.card.emvRequest', validationType: 'INVALID' },
      });
      expect(response.text).not.toContain('AABBCCDDEEFF0011');
    });

    it('refuses UNMASK without the permission and certificate authentication', async () => {
      const response = await verify(merchant, verifyBody({ responseControls: { sensitiveData: 'UNMASK' } }));
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        error: { field: 'responseControls.sensitiveData', validationType: 'INVALID' },
      });
    });

    it('refuses a live merchant, which has no acquirer, with nothing recorded', async () => {
      const live = await createMerchant({}, { mode: 'LIVE' });
      const orderId = newOrderId();
      const response = await verify(live, verifyBody(), orderId);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ error: { cause: 'INVALID_REQUEST' }, result: 'ERROR' });
      const order = await call('GET', `${live.base()}/order/${orderId}`, {
        authorization: live.authorization,
      });
      expect(order.status).toBe(404);
    });
  });

  describe('a stored card', () => {
    it('asks a recurring verification with a token\'s card to name its agreement (spec, agreement.id), and verifies it once named', async () => {
      const created = await call<Json>('POST', `${merchant.base(57)}/token`, {
        authorization: merchant.authorization,
        body: { sourceOfFunds: { type: 'CARD', provided: { card: card() } } },
      });
      expect(created.status).toBe(201);
      const token = created.body.token as string;
      const recurring = { type: 'RECURRING', amountVariability: 'VARIABLE' };
      const body = (agreement: Json) => ({ apiOperation: 'VERIFY', order: { currency: 'USD' }, agreement, sourceOfFunds: { type: 'CARD', token } });

      const unnamed = await verify(merchant, body(recurring));
      expect(unnamed.status).toBe(400);
      expect(unnamed.body).toMatchObject({ error: { field: 'agreement.id', validationType: 'MISSING' }, result: 'ERROR' });
      const named = await verify(merchant, body({ id: `agr-${randomBytes(6).toString('hex')}`, ...recurring }));
      expect(named.status).toBe(201);
      expect(named.body).toMatchObject({ result: 'SUCCESS', agreement: recurring });
    });

    it('verifies the card of a token with an explicit security code, and answers the card masked', async () => {
      const created = await call<Json>('POST', `${merchant.base(57)}/token`, {
        authorization: merchant.authorization,
        body: {
          sourceOfFunds: {
            type: 'CARD',
            provided: { card: card(TEST_EXPIRY.DECLINED, { nameOnCard: 'Ada Lovelace' }) },
          },
        },
      });
      expect(created.status).toBe(201);
      const token = created.body.token as string;
      const orderId = newOrderId();

      const response = await verify(
        merchant,
        {
          apiOperation: 'VERIFY',
          order: { currency: 'USD' },
          sourceOfFunds: { type: 'CARD', token, provided: { card: { securityCode: '102' } } },
        },
        orderId,
      );
      expect(response.status).toBe(201);
      expect(response.text).not.toContain(TEST_CARD);
      expect(response.body).toMatchObject({
        result: 'FAILURE',
        response: { gatewayCode: 'DECLINED', cardSecurityCode: { gatewayCode: 'NO_MATCH' } },
        sourceOfFunds: {
          token,
          type: 'CARD',
          provided: { card: { number: MASKED, brand: 'MASTERCARD', expiry: { month: '5', year: '39' } } },
        },
      });

      const explicitExpiry = await verify(
        merchant,
        {
          apiOperation: 'VERIFY',
          order: { currency: 'USD' },
          sourceOfFunds: { type: 'CARD', token, provided: { card: { expiry: { ...TEST_EXPIRY.APPROVED } } } },
        },
        orderId,
        'verify-2',
      );
      expect(explicitExpiry.body).toMatchObject({ result: 'SUCCESS', response: { gatewayCode: 'APPROVED' } });
      expect(explicitExpiry.text).not.toContain(TEST_CARD);
    });

    it("checks a requested card type against the stored card's BIN before any acquirer call", async () => {
      const created = await call<Json>('POST', `${merchant.base(57)}/token`, {
        authorization: merchant.authorization,
        body: { sourceOfFunds: { type: 'CARD', provided: { card: card() } } },
      });
      const withCardType = (token: string) => ({
        apiOperation: 'VERIFY',
        order: { currency: 'USD' },
        sourceOfFunds: { type: 'CARD', token, provided: { card: { cardType: 'CREDIT' } } },
      });
      const stored = await verify(merchant, withCardType(created.body.token as string));
      expect(stored.status).toBe(400);
      expect(stored.body).toMatchObject({
        error: { field: 'sourceOfFunds.provided.card.cardType', validationType: 'UNSUPPORTED' },
      });
      const unknown = await verify(merchant, withCardType('9000000000000001'));
      expect(unknown.status).toBe(400);
      expect(unknown.body).toMatchObject({
        error: { field: 'sourceOfFunds.token', validationType: 'INVALID' },
      });
    });

    it('refuses a token the merchant does not have, on sourceOfFunds.token', async () => {
      const response = await verify(merchant, {
        apiOperation: 'VERIFY',
        order: { currency: 'USD' },
        sourceOfFunds: { type: 'CARD', token: '9000000000000001' },
      });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        error: { field: 'sourceOfFunds.token', validationType: 'INVALID' },
      });
    });
  });
});
