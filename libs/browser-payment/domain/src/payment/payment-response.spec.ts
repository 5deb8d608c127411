import type { BrowserPaymentRow } from '@gateway/browser-payment/data-access';
import { validateOrderOperationRequest } from '@gateway/contracts';
import { initiateBody } from '../testing/browser-payment-test-bed';
import { orderDetails, paymentResponse } from './payment-response';
import { asJson, storedRequestOf } from './stored-request';

function payment(body = initiateBody(), changes: Partial<BrowserPaymentRow> = {}): BrowserPaymentRow {
  const request = storedRequestOf(validateOrderOperationRequest('INITIATE_BROWSER_PAYMENT', body));
  return {
    id: 'p',
    merchantId: 'M',
    orderId: 'o',
    transactionId: 't',
    provider: 'provider_a',
    merchantMode: 'TEST',
    operation: 'PAY',
    confirmation: 'CONFIRM_AT_PROVIDER',
    currency: 'EUR',
    amount: '20.00',
    interactionStatus: 'INITIATED',
    result: 'PENDING',
    gatewayCode: 'SUBMITTED',
    payerOutcome: null,
    tokenHash: Buffer.alloc(32),
    tokenExpiresAt: new Date('2031-01-01T01:00:00.000Z'),
    providerReference: 'PA-1',
    returnUrl: 'https://shop.example/return',
    request: asJson(request),
    providerDetails: null,
    timeInitiated: new Date('2031-01-01T00:00:00.000Z'),
    timeRedirected: null,
    timeReturned: null,
    timeCompleted: null,
    updatedAt: new Date('2031-01-01T00:00:00.000Z'),
    ...changes,
  };
}

describe('a browser payment\'s response', () => {
  it('renders amounts as JSON numbers from the exact decimals, item quantities as integers', () => {
    const body = initiateBody({
      order: {
        amount: '0.30',
        currency: 'EUR',
        itemAmount: '0.30',
        taxAmount: '0.00',
        item: [{ name: 'a', quantity: '3', unitPrice: '0.10', unitTaxAmount: '0.00', sku: 'S1' }],
        tax: [{ amount: '0.00', type: 'VAT' }],
        custom: { colour: 'blue' },
        reference: 'ref-1',
      },
    });
    const response = paymentResponse(payment(body, { amount: '0.30' }), 'PROVIDER_A_SIMULATOR');
    expect(JSON.stringify(response.order)).toBe(
      '{"reference":"ref-1","custom":{"colour":"blue"},"itemAmount":0.3,"taxAmount":0,"item":[{"name":"a","quantity":3,"unitPrice":0.1,"unitTaxAmount":0,"sku":"S1"}],"tax":[{"amount":0,"type":"VAT"}],"amount":0.3,"currency":"EUR"}',
    );
  });

  it('keeps a quantity past 2^53 as its digits rather than round it', () => {
    const body = initiateBody({
      order: { amount: '1', currency: 'JPY', item: [{ name: 'grain', quantity: '9999999999999999', unitPrice: '0' }] },
    });
    const order = paymentResponse(payment(body, { currency: 'JPY', amount: '1' }), 'X').order as { item: { quantity: unknown }[] };
    expect(order.item[0].quantity).toBe('9999999999999999');
  });

  it('shows each interaction time once it happened, the redirect URL only when given', () => {
    const response = paymentResponse(
      payment(undefined, { interactionStatus: 'RETURNED_TO_MERCHANT', timeRedirected: new Date('2031-01-01T00:00:01.000Z'), timeReturned: new Date('2031-01-01T00:00:02.000Z') }),
      'PROVIDER_A_SIMULATOR',
    );
    expect(response.browserPayment).toEqual({
      interaction: {
        status: 'RETURNED_TO_MERCHANT',
        timeInitiated: '2031-01-01T00:00:00.000Z',
        timeRedirected: '2031-01-01T00:00:01.000Z',
        timeReturned: '2031-01-01T00:00:02.000Z',
      },
      provider_a: { operation: 'PAY', paymentConfirmation: 'CONFIRM_AT_PROVIDER', displayShippingAddress: true, overrideShippingAddress: true },
      returnUrl: 'https://shop.example/return',
    });
    expect((paymentResponse(payment(), 'X', 'https://pay.example/bpui/provider_a/out/BP-x').browserPayment as { redirectUrl: string }).redirectUrl).toBe(
      'https://pay.example/bpui/provider_a/out/BP-x',
    );
  });

  it('keeps what the merchant described as the order\'s details, without the ledger\'s own fields', () => {
    const body = initiateBody({ shipping: { method: 'GROUND' }, customer: { email: 'payer@example.com' } });
    expect(orderDetails(payment(body))).toEqual({
      description: 'Two books',
      itemAmount: 20,
      item: [{ name: 'Book', quantity: 2, unitPrice: 10 }],
      shipping: { method: 'GROUND' },
      customer: { email: 'payer@example.com' },
    });
  });

  it('carries the shipping address under the street/street2 rule: street joined, no street2 (spec, Address group)', () => {
    const body = initiateBody({
      shipping: { method: 'GROUND', address: { street: '1 A St', street2: 'B', city: 'Town', country: 'DEU' }, contact: { firstName: 'Pat' } },
    });
    const shipping = { method: 'GROUND', address: { street: '1 A St B', city: 'Town', country: 'DEU' }, contact: { firstName: 'Pat' } };
    expect(paymentResponse(payment(body), 'PROVIDER_A_SIMULATOR').shipping).toEqual(shipping);
    expect(orderDetails(payment(body)).shipping).toEqual(shipping);
  });

  it('cuts the joined street to its 100 characters', () => {
    const body = initiateBody({ shipping: { address: { street: 'a'.repeat(60), street2: 'b'.repeat(60) } } });
    const address = (paymentResponse(payment(body), 'X').shipping as { address: Record<string, string> }).address;
    expect(address).toEqual({ street: `${'a'.repeat(60)} ${'b'.repeat(39)}` });
  });
});
