import { defaultMerchantSettings, JsonObject, LedgerOrderView, MerchantContext, validateOrderOperationRequest } from '@gateway/contracts';
import { TEST_CARD } from '@gateway/testing';
import { planRefund } from './refund-plan';
import { refundOrderDetails, refundResponseBody } from './refund-response';

const merchant: MerchantContext = { id: 'TESTM1', mode: 'TEST', settings: defaultMerchantSettings() };

const paidOrder: LedgerOrderView = {
  id: 'order-1',
  currency: 'USD',
  amount: '50.00',
  status: 'CAPTURED',
  totalAuthorizedAmount: '50.00',
  totalCapturedAmount: '50.00',
  totalRefundedAmount: '0.00',
  creationTime: '2030-01-01T00:00:00.000Z',
  lastUpdatedTime: '2030-01-01T00:00:00.000Z',
  transactions: [
    { id: 'pay-1', type: 'PAYMENT', apiOperation: 'PAY', amount: '50.00', currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED', fundingType: 'CARD', createdAt: '2030-01-01T00:00:00.000Z' },
  ],
};

/** Every visible refund request field (no card: a linked refund). */
const everyField = {
  apiOperation: 'REFUND',
  billing: { address: { city: 'Dublin', country: 'IRL', postcodeZip: 'D02 X285', street: '1 Main Street', street2: 'Flat 2' } },
  currencyConversion: { requestId: 'quote-1', uptake: 'DECLINED' },
  customer: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', phone: '+353 1 234567' },
  device: { ipAddress: '192.168.0.1', browser: 'Mozilla/5.0' },
  order: {
    acceptPartialAmount: true,
    custom: { colour: 'red' },
    customerNote: 'Damaged on arrival',
    customerOrderDate: '2030-01-01',
    customerReference: 'CR-1',
    notificationUrl: 'https://merchant.example.com/hooks',
    productSKU: 'SKU-1',
    reference: 'ref-1',
    requestorName: 'Returns desk',
    taxRegistrationId: 'IE1234567T',
    walletIndicator: '101',
    walletProvider: 'SOME_WALLET',
  },
  partnerSolutionId: 'partner-1',
  posTerminal: { name: 'T1', attended: 'ATTENDED', entryMode: '052' },
  shipping: { address: { street: 'Dock Road', street2: 'Unit 9', country: 'IRL' }, contact: { firstName: 'Ada' }, method: 'GROUND' },
  transaction: {
    amount: '20.00',
    currency: 'USD',
    acquirer: { customData: 'batch 7' },
    item: [{ name: 'Mug', quantity: '2', unitPrice: '10.00', unitTaxAmount: '0.50', sku: 'MUG' }],
    merchantNote: 'goodwill',
    reference: 'rf-1',
    source: 'INTERNET',
    taxAmount: '1.00',
  },
  userId: 'clerk-7',
};

describe('the refund response body', () => {
  const request = validateOrderOperationRequest('REFUND', everyField);
  const plan = planRefund(request, paidOrder, merchant);
  const targetBody: JsonObject = {
    '3DSecure': { acsEci: '02', authenticationStatus: 'AUTHENTICATION_SUCCESSFUL', enrollmentStatus: 'ENROLLED' },
    sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008', brand: 'MASTERCARD' } } },
  };
  const body = refundResponseBody({
    request,
    plan,
    targetBody,
    outcome: {
      result: 'SUCCESS',
      gatewayCode: 'APPROVED',
      acquirerCode: '00',
      acquirerMessage: 'Approved',
      acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC1234560101' },
      authorizationResponse: { processingCode: '200000' },
      receipt: '0001123456',
    },
  });

  it('echoes every visible request field where the spec returns it', () => {
    expect(body).toEqual({
      '3DSecure': targetBody['3DSecure'],
      authorizationResponse: { processingCode: '200000' },
      billing: { address: { city: 'Dublin', country: 'IRL', postcodeZip: 'D02 X285', street: '1 Main Street Flat 2' } },
      customer: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', phone: '+353 1 234567' },
      device: { ipAddress: '192.168.0.1', browser: 'Mozilla/5.0' },
      order: {
        acceptPartialAmount: true,
        custom: { colour: 'red' },
        customerNote: 'Damaged on arrival',
        customerOrderDate: '2030-01-01',
        customerReference: 'CR-1',
        notificationUrl: 'https://merchant.example.com/hooks',
        productSKU: 'SKU-1',
        reference: 'ref-1',
        requestorName: 'Returns desk',
        taxRegistrationId: 'IE1234567T',
        walletIndicator: '101',
        walletProvider: 'SOME_WALLET',
      },
      partnerSolutionId: 'partner-1',
      posTerminal: { name: 'T1', attended: 'ATTENDED', entryMode: '052' },
      response: { acquirerCode: '00', acquirerMessage: 'Approved' },
      shipping: { address: { country: 'IRL', street: 'Dock Road Unit 9' }, contact: { firstName: 'Ada' }, method: 'GROUND' },
      sourceOfFunds: targetBody.sourceOfFunds,
      transaction: {
        acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC1234560101', customData: 'batch 7' },
        item: [{ name: 'Mug', quantity: 2, unitPrice: 10, unitTaxAmount: 0.5, sku: 'MUG' }],
        merchantNote: 'goodwill',
        receipt: '0001123456',
        reference: 'rf-1',
        source: 'INTERNET',
        taxAmount: 1,
      },
      userId: 'clerk-7',
    });
  });

  it('ignores DCC on a linked refund (honoured only on an order\'s first transaction)', () => {
    expect(body.currencyConversion).toBeUndefined();
    expect(refundOrderDetails(request, plan).currencyConversion).toBeUndefined();
  });

  it('keeps the order fields, billing, customer and shipping on the order', () => {
    expect(refundOrderDetails(request, plan)).toEqual({
      acceptPartialAmount: true,
      custom: { colour: 'red' },
      customerNote: 'Damaged on arrival',
      customerOrderDate: '2030-01-01',
      customerReference: 'CR-1',
      productSKU: 'SKU-1',
      reference: 'ref-1',
      requestorName: 'Returns desk',
      taxRegistrationId: 'IE1234567T',
      walletIndicator: '101',
      walletProvider: 'SOME_WALLET',
      billing: body.billing,
      customer: body.customer,
      shipping: body.shipping,
    });
  });
});

describe('a standalone refund response', () => {
  const standalone = validateOrderOperationRequest('REFUND', {
    apiOperation: 'REFUND',
    currencyConversion: { requestId: 'quote-1' },
    sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: { month: '01', year: '39' }, securityCode: '100', sequenceNumber: '1' } } },
    transaction: { amount: '5', currency: 'USD', item: [{ name: 'Bulk', quantity: '9999999999999999', unitPrice: '0.01' }] },
  });
  const plan = planRefund(standalone, null, merchant);

  it('shows the card masked, never its security code, and the DCC uptake of the first transaction', () => {
    const reserved = refundResponseBody({ request: standalone, plan, targetBody: null });
    expect(reserved.sourceOfFunds).toEqual({
      type: 'CARD',
      provided: {
        card: { number: '512345xxxxxx0008', expiry: { month: '1', year: '39' }, brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'CREDIT', sequenceNumber: '001' },
      },
    });
    expect(JSON.stringify(reserved)).not.toContain(TEST_CARD);
    expect(JSON.stringify(reserved)).not.toContain('securityCode');
    expect(reserved.currencyConversion).toEqual({ uptake: 'NOT_REQUIRED' });
    expect(refundOrderDetails(standalone, plan).currencyConversion).toEqual({ requestId: 'quote-1' });
  });

  it('takes the acquirer\'s card profile once the refund is done', () => {
    const done = refundResponseBody({
      request: standalone,
      plan,
      targetBody: null,
      outcome: {
        result: 'SUCCESS',
        gatewayCode: 'APPROVED',
        card: { number: '512345xxxxxx0008', expiry: { month: '1', year: '39' }, brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'CREDIT' },
      },
    });
    expect(done.sourceOfFunds).toEqual({
      type: 'CARD',
      provided: {
        card: { number: '512345xxxxxx0008', expiry: { month: '1', year: '39' }, brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'CREDIT', sequenceNumber: '001' },
      },
    });
  });

  it("names the merchant's card acquirer until the acquirer answers for itself (reserved, awaiting approval, outcome unknown)", () => {
    expect(refundResponseBody({ request: standalone, plan, targetBody: null }).transaction).toMatchObject({ acquirer: { id: 'TEST_ACQUIRER' } });
    const token = validateOrderOperationRequest('REFUND', { apiOperation: 'REFUND', sourceOfFunds: { token: '9123456789012345' }, transaction: { amount: '9', currency: 'USD' } });
    const awaiting = planRefund(token, null, { ...merchant, settings: { ...merchant.settings, privileges: { ...merchant.settings.privileges, refundRequiresApproval: true } } });
    expect(awaiting.type).toBe('REFUND_REQUEST');
    expect(refundResponseBody({ request: token, plan: awaiting, targetBody: null }).transaction).toMatchObject({ acquirer: { id: 'TEST_ACQUIRER' } });
    const unknown = refundResponseBody({ request: standalone, plan, targetBody: null, outcome: { result: 'UNKNOWN', gatewayCode: 'UNKNOWN' } });
    expect(unknown.transaction).toMatchObject({ acquirer: { id: 'TEST_ACQUIRER' } });
    const answered = refundResponseBody({
      request: standalone,
      plan,
      targetBody: null,
      outcome: { result: 'SUCCESS', gatewayCode: 'APPROVED', acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC1234560101' } },
    });
    expect(answered.transaction).toMatchObject({ acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC1234560101' } });
    // A live merchant has no acquirer configured: left out.
    const live = planRefund(token, null, { ...merchant, mode: 'LIVE', settings: { ...merchant.settings, privileges: { ...merchant.settings.privileges, refundRequiresApproval: true } } });
    expect(refundResponseBody({ request: token, plan: live, targetBody: null }).transaction).not.toHaveProperty('acquirer');
  });

  it("answers brand, scheme and funding method (ALWAYS PROVIDED within card) from the card's BIN when no acquirer said: outcome unknown", () => {
    const unknown = refundResponseBody({ request: standalone, plan, targetBody: null, outcome: { result: 'UNKNOWN', gatewayCode: 'UNKNOWN' } });
    expect((unknown.sourceOfFunds as JsonObject).provided).toEqual({
      card: { number: '512345xxxxxx0008', expiry: { month: '1', year: '39' }, brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'CREDIT', sequenceNumber: '001' },
    });
    // Another scheme's card: what its BIN range says, UNKNOWN funding where the range does not tell.
    const visa = validateOrderOperationRequest('REFUND', {
      apiOperation: 'REFUND',
      sourceOfFunds: { type: 'CARD', provided: { card: { number: '4111111111111111', expiry: { month: '1', year: '39' } } } },
      transaction: { amount: '5', currency: 'USD' },
    });
    const body = refundResponseBody({ request: visa, plan: planRefund(visa, null, merchant), targetBody: null, outcome: { result: 'UNKNOWN', gatewayCode: 'UNKNOWN' } });
    expect((body.sourceOfFunds as JsonObject).provided).toEqual({
      card: { number: '411111xxxxxx1111', expiry: { month: '1', year: '39' }, brand: 'VISA', scheme: 'VISA', fundingMethod: 'UNKNOWN' },
    });
  });

  it('answers no card group without a card number: a REFUND_REQUEST to a token giving only the name on the card', () => {
    const token = validateOrderOperationRequest('REFUND', {
      apiOperation: 'REFUND',
      sourceOfFunds: { token: '9123456789012345', provided: { card: { nameOnCard: 'Ada Lovelace' } } },
      transaction: { amount: '9', currency: 'USD' },
    });
    const approving = { ...merchant, settings: { ...merchant.settings, privileges: { ...merchant.settings.privileges, refundRequiresApproval: true } } };
    const awaiting = planRefund(token, null, approving);
    expect(awaiting.type).toBe('REFUND_REQUEST');
    expect(refundResponseBody({ request: token, plan: awaiting, targetBody: null }).sourceOfFunds).toEqual({ type: 'CARD', token: '9123456789012345' });
    // Once the vault answers with the token's card, the name is shown with it.
    const done = refundResponseBody({
      request: token,
      plan: planRefund(token, null, merchant),
      targetBody: null,
      outcome: {
        result: 'SUCCESS',
        gatewayCode: 'APPROVED',
        card: { number: '512345xxxxxx0008', expiry: { month: '1', year: '39' }, brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'CREDIT' },
      },
    });
    expect((done.sourceOfFunds as JsonObject).provided).toMatchObject({ card: { number: '512345xxxxxx0008', nameOnCard: 'Ada Lovelace', brand: 'MASTERCARD' } });
  });

  it('returns a quantity past the exact JSON integers as its digits rather than rounded', () => {
    const body = refundResponseBody({ request: standalone, plan, targetBody: null });
    expect((body.transaction as JsonObject).item).toEqual([{ name: 'Bulk', quantity: '9999999999999999', unitPrice: 0.01 }]);
  });
});
