import { TestAcquirer, VerifyCardResult, withCardDetails } from '@gateway/acquirer';
import { AvsResponseCodeRule, VerifyRequest } from '@gateway/contracts';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import {
  buildVerifyCardRequest,
  cardPresentment,
  explicitCardDetails,
} from '../acquirer/verify-card-request.mapper';
import { parseEmvRequest } from '../rules/emv-request.rule';
import { assembleVerifyResponse, VerifyResponseParts } from './verify-response.assembler';

const NOW = new Date('2026-11-21T10:15:30.123Z');

function request(
  overrides: Partial<VerifyRequest> = {},
  expiry: { month: string; year: string } = TEST_EXPIRY.APPROVED,
): VerifyRequest {
  return {
    apiOperation: 'VERIFY',
    order: { currency: 'USD' },
    sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry, securityCode: '100' } } },
    ...overrides,
  };
}

/** The real test acquirer (fixed clock and digits) answering the request, then the assembly. */
async function verify(
  data: VerifyRequest,
  options: {
    merchantAvsRules?: AvsResponseCodeRule[];
    emvRequest?: string;
    cardType?: string;
  } = {},
): Promise<VerifyResponseParts & { acquirerResult: VerifyCardResult }> {
  const emv = options.emvRequest ? parseEmvRequest(options.emvRequest) : undefined;
  const given = data.sourceOfFunds.provided!.card!;
  const details = explicitCardDetails(given);
  const acquirer = new TestAcquirer({ now: () => NOW, randomDigits: (n) => '7'.repeat(n) });
  const context = { merchantId: 'TESTMERCHANT1', orderId: 'order-1', transactionId: 'verify-1' };
  const cardless = buildVerifyCardRequest({
    ...context,
    request: data,
    presentment: cardPresentment(given, emv),
    posTerminal: data.posTerminal,
  });
  const acquirerResult = await acquirer.verify(withCardDetails(cardless, details));
  const parts = assembleVerifyResponse({
    ...context,
    request: data,
    card: { nameOnCard: details.nameOnCard, sequenceNumber: emv?.card.sequenceNumber },
    emv,
    posTerminal: data.posTerminal,
    cardType: options.cardType,
    acquirerResult,
    merchantAvsRules: options.merchantAvsRules ?? [],
    now: NOW,
  });
  return { ...parts, acquirerResult };
}

describe('VERIFY response assembly', () => {
  it('answers an approved verification as a zero-amount VERIFICATION with the masked card, order status left to the ledger', async () => {
    const { body, outcome } = await verify(request());
    expect(body).toEqual({
      authorizationResponse: {
        commercialCard: 'NOT_A_COMMERCIAL_CARD',
        date: '1121',
        financialNetworkCode: 'MCC',
        processingCode: '000000',
        responseCode: '00',
        stan: '777777',
        time: '101530',
        transactionIdentifier: 'MCC7777771121',
      },
      order: { amount: 0, currency: 'USD', id: 'order-1' },
      response: {
        acquirerCode: '00',
        acquirerMessage: 'Approved',
        cardSecurityCode: { acquirerCode: 'M', gatewayCode: 'MATCH' },
        cardholderVerification: { avs: { gatewayCode: 'NOT_REQUESTED' } },
        gatewayCode: 'APPROVED',
      },
      result: 'SUCCESS',
      sourceOfFunds: {
        provided: {
          card: {
            brand: 'MASTERCARD',
            expiry: { month: '1', year: '39' },
            fundingMethod: 'CREDIT',
            number: '512345xxxxxx0008',
            scheme: 'MASTERCARD',
          },
        },
        type: 'CARD',
      },
      timeOfRecord: '2026-11-21T10:15:30.123Z',
      transaction: {
        acquirer: {
          date: '1121',
          id: 'TEST_ACQUIRER',
          merchantId: 'TESTMERCHANT1',
          time: '101530',
          transactionId: 'MCC7777771121',
        },
        amount: 0,
        authorizationCode: '777777',
        currency: 'USD',
        id: 'verify-1',
        receipt: '632510777777',
        type: 'VERIFICATION',
      },
    });
    expect(outcome).toEqual({
      type: 'VERIFICATION',
      amount: '0.00',
      currency: 'USD',
      gatewayCode: 'APPROVED',
      result: 'SUCCESS',
    });
  });

  it.each([
    [TEST_EXPIRY.APPROVED, 'APPROVED', 'SUCCESS'],
    [TEST_EXPIRY.DECLINED, 'DECLINED', 'FAILURE'],
    [TEST_EXPIRY.EXPIRED_CARD, 'EXPIRED_CARD', 'FAILURE'],
    [TEST_EXPIRY.TIMED_OUT, 'TIMED_OUT', 'FAILURE'],
    [TEST_EXPIRY.ACQUIRER_SYSTEM_ERROR, 'ACQUIRER_SYSTEM_ERROR', 'FAILURE'],
    [TEST_EXPIRY.UNSPECIFIED_FAILURE, 'UNSPECIFIED_FAILURE', 'FAILURE'],
    [TEST_EXPIRY.UNKNOWN, 'UNKNOWN', 'UNKNOWN'],
  ])('reports expiry %j as %s with result %s', async (expiry, gatewayCode, result) => {
    const { body } = await verify(request({}, expiry));
    expect(body).toMatchObject({
      response: { gatewayCode },
      result,
      transaction: { type: 'VERIFICATION' },
    });
    expect(Boolean((body.transaction as { authorizationCode?: string }).authorizationCode)).toBe(
      gatewayCode === 'APPROVED',
    );
  });

  it('renders zero amounts as JSON 0 in any currency, and never the full card number', async () => {
    const { body } = await verify(request({ order: { currency: 'BHD' } }));
    const json = JSON.stringify(body);
    expect(json).toContain('"amount":0,');
    expect(json).not.toContain(TEST_CARD);
    expect(json).not.toMatch(/securityCode"/);
  });

  it('turns an approval into DECLINED_AVS on a REJECT rule for the returned AVS code, and says why under risk', async () => {
    const data = request({
      billing: { address: { street: 'NO_MATCH', postcodeZip: '10001' } },
      order: {
        currency: 'USD',
        transactionFiltering: { avsResponseCodeRules: [{ avsResponseCode: 'NO_MATCH', action: 'REJECT' }] },
      },
    });
    const { body, outcome } = await verify(data);
    expect(body).toMatchObject({
      response: {
        gatewayCode: 'DECLINED_AVS',
        cardholderVerification: { avs: { gatewayCode: 'NO_MATCH', acquirerCode: 'N' } },
      },
      result: 'FAILURE',
      risk: {
        response: {
          gatewayCode: 'REJECTED',
          rule: [{ data: 'N', name: 'AVS', recommendation: 'REJECT', type: 'MSO_AVS' }],
        },
      },
    });
    expect(outcome).toMatchObject({
      gatewayCode: 'DECLINED_AVS',
      result: 'FAILURE',
      filtering: { action: 'REJECT', source: 'REQUEST' },
    });
  });

  it('gives no approval code when an AVS REJECT rule declines what the issuer approved, and keeps it on REVIEW', async () => {
    const billing = { address: { street: 'NO_MATCH', postcodeZip: '10001' } };
    const rejected = await verify(request({ billing }), { merchantAvsRules: [{ avsResponseCode: 'NO_MATCH', action: 'REJECT' }] });
    expect(rejected.acquirerResult).toMatchObject({ gatewayCode: 'APPROVED', authorizationCode: '777777' });
    expect(rejected.body).toMatchObject({ response: { gatewayCode: 'DECLINED_AVS' }, result: 'FAILURE' });
    expect(rejected.body.transaction).not.toHaveProperty('authorizationCode');
    // The issuer's own answer stays where it is reported as the acquirer's.
    expect(rejected.body).toMatchObject({ response: { acquirerCode: '00' }, authorizationResponse: { responseCode: '00' } });

    const reviewed = await verify(request({ billing }), { merchantAvsRules: [{ avsResponseCode: 'NO_MATCH', action: 'REVIEW' }] });
    expect(reviewed.body).toMatchObject({ response: { gatewayCode: 'APPROVED' }, transaction: { authorizationCode: '777777' } });
  });

  it("applies the merchant profile's rules, and records REVIEW without changing the approval", async () => {
    const data = request({ billing: { address: { postcodeZip: '00012' } } });
    const { body, outcome } = await verify(data, {
      merchantAvsRules: [{ avsResponseCode: 'ZIP_MATCH', action: 'REVIEW' }],
    });
    expect(body).toMatchObject({
      response: { gatewayCode: 'APPROVED' },
      result: 'SUCCESS',
      risk: { response: { gatewayCode: 'REVIEW_REQUIRED', review: { decision: 'PENDING' } } },
    });
    expect(outcome.filtering).toEqual({ avsResponseCode: 'ZIP_MATCH', action: 'REVIEW', source: 'MERCHANT' });
  });

  it('reports a REJECT as REJECTED and a NO_ACTION as ACCEPTED, neither pending review, and names the AVS code when the acquirer gave no letter', async () => {
    const rejected = await verify(request({ billing: { address: { street: 'NO_MATCH' } } }), {
      merchantAvsRules: [{ avsResponseCode: 'NO_MATCH', action: 'REJECT' }],
    });
    expect(rejected.body.risk).toEqual({
      response: { gatewayCode: 'REJECTED', rule: [{ data: 'N', name: 'AVS', recommendation: 'REJECT', type: 'MSO_AVS' }] },
    });
    // No billing address: NOT_REQUESTED, for which the acquirer reports no AVS letter.
    const accepted = await verify(request(), {
      merchantAvsRules: [{ avsResponseCode: 'NOT_REQUESTED', action: 'NO_ACTION' }],
    });
    expect(accepted.body).toMatchObject({ response: { gatewayCode: 'APPROVED' }, result: 'SUCCESS' });
    expect(accepted.body.risk).toEqual({
      response: {
        gatewayCode: 'ACCEPTED',
        rule: [{ data: 'NOT_REQUESTED', name: 'AVS', recommendation: 'NO_ACTION', type: 'MSO_AVS' }],
      },
    });
  });

  it("reports the issuer's security code check as it answered, a mismatch as NO_MATCH", async () => {
    const mismatch = request();
    mismatch.sourceOfFunds = { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED, securityCode: '102' } } };
    const { body } = await verify(mismatch);
    expect(body).toMatchObject({ response: { cardSecurityCode: { gatewayCode: 'NO_MATCH', acquirerCode: 'N' } } });
  });

  it('has no risk group when no rule names the AVS code', async () => {
    const { body } = await verify(request({ billing: { address: { street: '1 Main St' } } }), {
      merchantAvsRules: [{ avsResponseCode: 'NO_MATCH', action: 'REJECT' }],
    });
    expect(body).not.toHaveProperty('risk');
    expect(body).toMatchObject({
      response: {
        gatewayCode: 'APPROVED',
        cardholderVerification: { avs: { gatewayCode: 'ADDRESS_MATCH' } },
      },
    });
  });

  describe('shipping and billing', () => {
    const billing = {
      street: '12 Main St.',
      street2: 'Apt 4',
      city: 'Springfield',
      postcodeZip: '10001',
      country: 'USA',
    };

    it('derives sameAsBilling and joins street and street2 in the response', async () => {
      const { body } = await verify(
        request({
          billing: { address: billing },
          shipping: {
            address: { ...billing, street: '12 Main St, Apt. 4', street2: undefined, source: 'NEW_ADDRESS' },
            method: 'GROUND',
          },
        }),
      );
      expect(body.billing).toEqual({
        address: { city: 'Springfield', country: 'USA', postcodeZip: '10001', street: '12 Main St. Apt 4' },
      });
      expect(body.shipping).toEqual({
        address: {
          city: 'Springfield',
          country: 'USA',
          postcodeZip: '10001',
          sameAsBilling: 'SAME',
          source: 'NEW_ADDRESS',
          street: '12 Main St, Apt. 4',
        },
        method: 'GROUND',
      });
    });

    it.each([
      ['different addresses', { ...billing, city: 'Shelbyville' }, 'DIFFERENT'],
      ['no shipping address', undefined, 'UNKNOWN'],
    ])('gives %s sameAsBilling %s', async (_what, shippingAddress, sameAsBilling) => {
      const { body } = await verify(
        request({
          billing: { address: billing },
          ...(shippingAddress ? { shipping: { address: shippingAddress } } : {}),
        }),
      );
      expect(body).toMatchObject({ shipping: { address: { sameAsBilling } } });
    });

    it('truncates the joined street to 100 characters', async () => {
      const { body } = await verify(
        request({ billing: { address: { street: 'a'.repeat(80), street2: 'b'.repeat(80) } } }),
      );
      expect((body.billing as { address: { street: string } }).address.street).toHaveLength(100);
    });

    it('has no shipping group when neither address was given', async () => {
      expect((await verify(request())).body).not.toHaveProperty('shipping');
    });
  });

  it('echoes externally authenticated 3-D Secure data where the verify response has it', async () => {
    const { body } = await verify(
      request({
        authentication: {
          '3ds': {
            acsEci: '02',
            authenticationToken: 'AAACBllleHchZTBWIGV4AAAAAAA=',
            transactionId: 'txn-3ds-1',
          },
          '3ds2': {
            acsTransactionId: '5d4fa7d6-53e2-4f45-9b3c-d1f0c4a3a3e1',
            acsReference: 'ACS-REF',
            dsReference: 'DS-REF',
            protocolVersion: '2.2.0',
            transactionStatus: 'Y',
            statusReasonCode: '01',
          },
          amount: '10.50',
          transactionId: 'auth-1',
        },
      }),
    );
    expect(body.authentication).toEqual({
      '3ds': {
        acsEci: '02',
        authenticationToken: 'AAACBllleHchZTBWIGV4AAAAAAA=',
        transactionId: 'txn-3ds-1',
      },
      '3ds2': {
        acsTransactionId: '5d4fa7d6-53e2-4f45-9b3c-d1f0c4a3a3e1',
        dsReference: 'DS-REF',
        methodCompleted: false,
        methodSupported: 'NOT_SUPPORTED',
        protocolVersion: '2.2.0',
        requestorId: 'TESTMERCHANT1',
        requestorName: 'TESTMERCHANT1',
        statusReasonCode: '01',
        transactionStatus: 'Y',
      },
      amount: 10.5,
      transactionId: 'auth-1',
      version: '3DS2',
    });
  });

  it('answers the authentication time in the spec\'s one DateTime form, whatever offset it came with', async () => {
    const { body } = await verify(request({ authentication: { time: '2024-01-01T00:00:00+01:00' } }));
    expect(body.authentication).toMatchObject({ time: '2023-12-31T23:00:00.000Z' });
  });

  it("gives back the merchant's own order, transaction, customer and device fields as sent", async () => {
    const { body } = await verify(
      request({
        order: { currency: 'USD', reference: 'ord-ref-1', description: 'Card check', customerReference: 'CUST-9', custom: { shopId: '42' } },
        transaction: { reference: 'txn-ref-1', source: 'INTERNET' },
        customer: { phone: '+1 555 0100' },
        device: { browser: 'Mozilla/5.0', ipAddress: '192.168.1.10' },
      }),
    );
    expect(body.order).toMatchObject({ reference: 'ord-ref-1', description: 'Card check', customerReference: 'CUST-9', custom: { shopId: '42' } });
    expect(body.transaction).toMatchObject({ reference: 'txn-ref-1', source: 'INTERNET', type: 'VERIFICATION' });
    expect(body.customer).toEqual({ phone: '+1 555 0100' });
    expect(body.device).toEqual({ browser: 'Mozilla/5.0', ipAddress: '192.168.1.10' });
  });

  it('gives back order.purchaseType with the account funding details it marks', async () => {
    const { body } = await verify(
      request({ order: { currency: 'USD', purchaseType: 'ACCOUNT_FUNDING' }, accountFunding: { purpose: 'PAYROLL', senderType: 'PERSON' } }),
    );
    expect(body.order).toMatchObject({ purchaseType: 'ACCOUNT_FUNDING', currency: 'USD' });
    expect(body.accountFunding).toEqual({ purpose: 'PAYROLL', senderType: 'PERSON' });
  });

  it('returns the agreement per the verify response table, amounts as JSON numbers', async () => {
    const { body } = await verify(
      request({
        agreement: {
          id: 'agr-1',
          type: 'RECURRING',
          amountVariability: 'VARIABLE',
          startDate: '2026-12-01',
          minimumAmountPerPayment: '1.10',
          maximumAmountPerPayment: '99.99',
          numberOfPayments: 12,
          paymentFrequency: 'MONTHLY',
          retailer: { tradingName: 'Shop' },
        },
      }),
    );
    expect(body.agreement).toEqual({
      amountVariability: 'VARIABLE',
      id: 'agr-1',
      maximumAmountPerPayment: 99.99,
      minimumAmountPerPayment: 1.1,
      numberOfPayments: 12,
      paymentFrequency: 'MONTHLY',
      retailer: { tradingName: 'Shop' },
      startDate: '2026-12-01',
      type: 'RECURRING',
    });
  });

  it('echoes token, name, sequence number, card type, terminal data and EMV data without PAN and expiry', async () => {
    const emvRequest = `5A08${TEST_CARD}5F24033901315F340101` + '9F2608AABBCCDDEEFF0011';
    const data = request({
      sourceOfFunds: {
        type: 'CARD',
        token: '9999990000000001',
        provided: {
          card: {
            number: TEST_CARD,
            expiry: TEST_EXPIRY.APPROVED,
            nameOnCard: 'A Payer',
          },
        },
      },
      posTerminal: { attended: 'ATTENDED', lane: '7' },
      customer: { firstName: 'A', lastName: 'Payer', email: 'payer@example.com' },
      partnerSolutionId: 'solution-1',
      order: {
        currency: 'USD',
        taxStatus: 'EXEMPT',
        transactionFiltering: { avsResponseCodeRules: [] },
      },
    });
    const { body } = await verify(data, { emvRequest, cardType: 'CREDIT' });
    expect(body.sourceOfFunds).toEqual({
      provided: {
        card: {
          brand: 'MASTERCARD',
          cardType: 'CREDIT',
          emvRequest: '5F3401019F2608AABBCCDDEEFF0011',
          expiry: { month: '1', year: '39' },
          fundingMethod: 'CREDIT',
          nameOnCard: 'A Payer',
          number: '512345xxxxxx0008',
          scheme: 'MASTERCARD',
          sequenceNumber: '001',
        },
      },
      token: '9999990000000001',
      type: 'CARD',
    });
    expect(body.posTerminal).toEqual({ attended: 'ATTENDED', lane: '7' });
    expect(body.partnerSolutionId).toBe('solution-1');
    expect(body.customer).toEqual({ firstName: 'A', lastName: 'Payer', email: 'payer@example.com' });
    expect(body.order).toEqual({
      amount: 0,
      currency: 'USD',
      id: 'order-1',
      taxStatus: 'EXEMPT',
    });
  });
});
