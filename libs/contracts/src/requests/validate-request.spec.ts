import { describeRequest } from '@gateway/api-fields';
import { GatewayError } from '../errors';
import { ConfirmBrowserPaymentRequest, InitiateBrowserPaymentRequest } from './browser-payment.requests';
import { RefundRequest } from './refund.request';
import { SaveTokenRequest } from './save-token.request';
import { readApiOperation, validateOrderOperationRequest, validateTokenRequest } from './validate-request';
import { VerifyRequest } from './verify.request';

const verify = {
  apiOperation: 'VERIFY',
  order: { currency: 'USD' },
  sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' }, securityCode: '100' } } },
};

function rejection(run: () => unknown): GatewayError {
  try {
    run();
  } catch (err) {
    if (err instanceof GatewayError) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

describe('validateOrderOperationRequest', () => {
  it('returns the typed request of each operation', () => {
    const request = validateOrderOperationRequest('VERIFY', verify);
    expect(request).toBeInstanceOf(VerifyRequest);
    expect(request.sourceOfFunds.provided?.card?.expiry?.month).toBe('1');
    expect(validateOrderOperationRequest('REFUND', { apiOperation: 'REFUND', transaction: { amount: '1', currency: 'USD' } })).toBeInstanceOf(
      RefundRequest,
    );
    expect(validateOrderOperationRequest('CONFIRM_BROWSER_PAYMENT', { apiOperation: 'CONFIRM_BROWSER_PAYMENT' })).toBeInstanceOf(
      ConfirmBrowserPaymentRequest,
    );
  });

  it('answers a problem as the spec error body (400 INVALID_REQUEST with field and validationType)', () => {
    const error = rejection(() => validateOrderOperationRequest('VERIFY', { ...verify, order: { currency: 'usd' } }));
    expect(error.httpStatus).toBe(400);
    expect(error.toResponseBody()).toEqual({
      error: {
        cause: 'INVALID_REQUEST',
        explanation: "Value 'usd' is invalid. currency must be exactly 3 upper-case letters A-Z.",
        field: 'order.currency',
        validationType: 'INVALID',
      },
      result: 'ERROR',
    });
  });

  it('rejects a billing street over its 100 characters as INVALID on that field', () => {
    const withStreet = (street: string) => ({ ...verify, billing: { address: { street } } });
    expect(validateOrderOperationRequest('VERIFY', withStreet('x'.repeat(100)))).toBeInstanceOf(VerifyRequest);
    expect(rejection(() => validateOrderOperationRequest('VERIFY', withStreet('x'.repeat(101))))).toMatchObject({
      field: 'billing.address.street',
      validationType: 'INVALID',
    });
  });

  it('reports a verify without order.currency as MISSING on it: the acquirer verifies in a currency', () => {
    expect(rejection(() => validateOrderOperationRequest('VERIFY', { ...verify, order: {} }))).toMatchObject({
      field: 'order.currency',
      validationType: 'MISSING',
    });
  });

  it('reports an expiry without its month as MISSING on the month', () => {
    const card = { ...verify.sourceOfFunds.provided.card, expiry: { year: '39' } };
    expect(rejection(() => validateOrderOperationRequest('VERIFY', { ...verify, sourceOfFunds: { type: 'CARD', provided: { card } } }))).toMatchObject({
      field: 'sourceOfFunds.provided.card.expiry.month',
      validationType: 'MISSING',
    });
  });

  it("rejects another operation's fields as UNSUPPORTED", () => {
    // VERIFY's transaction group is descriptive only: a verification moves no money.
    expect(rejection(() => validateOrderOperationRequest('VERIFY', { ...verify, transaction: { amount: '1' } }))).toMatchObject({
      field: 'transaction.amount',
      validationType: 'UNSUPPORTED',
    });
    expect(rejection(() => validateOrderOperationRequest('VERIFY', { ...verify, order: { currency: 'USD', amount: '1' } }))).toMatchObject({
      field: 'order.amount',
      validationType: 'UNSUPPORTED',
    });
    expect(
      rejection(() => validateOrderOperationRequest('CONFIRM_BROWSER_PAYMENT', { apiOperation: 'CONFIRM_BROWSER_PAYMENT', sourceOfFunds: { type: 'PROVIDER_A' } })),
    ).toMatchObject({ field: 'sourceOfFunds', validationType: 'UNSUPPORTED' });
  });

  it('takes order.purchaseType, the switch the spec names for accountFunding, as an enumeration value', () => {
    const aft = { ...verify, order: { currency: 'USD', purchaseType: 'ACCOUNT_FUNDING' }, accountFunding: { purpose: 'PAYROLL' } };
    expect(validateOrderOperationRequest('VERIFY', aft)).toMatchObject({ order: { purchaseType: 'ACCOUNT_FUNDING' } });
    // Not required with accountFunding, nor accountFunding with it: the spec states neither.
    expect(validateOrderOperationRequest('VERIFY', { ...verify, order: { currency: 'USD', purchaseType: 'ACCOUNT_FUNDING' } })).toBeInstanceOf(VerifyRequest);
    for (const value of ['account_funding', '', 'ACCOUNT FUNDING', 'A'.repeat(51)]) {
      expect(rejection(() => validateOrderOperationRequest('VERIFY', { ...verify, order: { currency: 'USD', purchaseType: value } }))).toMatchObject({
        field: 'order.purchaseType',
        validationType: 'INVALID',
      });
    }
  });

  it('refuses, on the service side, a body meant for another operation', () => {
    expect(rejection(() => validateOrderOperationRequest('REFUND', verify))).toMatchObject({ field: 'apiOperation', validationType: 'INVALID' });
  });

  it('never echoes the card number, the security code or track data', () => {
    const secrets = { number: '51234500000000089999', securityCode: '10000', track2: ';'.repeat(41) };
    for (const [field, value] of Object.entries(secrets)) {
      const body =
        field === 'track2'
          ? { apiOperation: 'REFUND', transaction: { amount: '1', currency: 'USD' }, sourceOfFunds: { provided: { card: { track2: value } } } }
          : { ...verify, sourceOfFunds: { provided: { card: { [field]: value } } } };
      const error = rejection(() => validateOrderOperationRequest(body.apiOperation as 'VERIFY', body));
      expect(error.field).toBe(`sourceOfFunds.provided.card.${field}`);
      expect(JSON.stringify(error.toResponseBody())).not.toContain(value);
    }
  });
});

describe('validateTokenRequest', () => {
  it('returns a SaveTokenRequest', () => {
    const request = validateTokenRequest({ sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008' } } } });
    expect(request).toBeInstanceOf(SaveTokenRequest);
  });

  it('rejects apiOperation as UNSUPPORTED', () => {
    expect(rejection(() => validateTokenRequest({ apiOperation: 'VERIFY', sourceOfFunds: { type: 'CARD' } }))).toMatchObject({
      field: 'apiOperation',
      validationType: 'UNSUPPORTED',
    });
  });

  it('rejects partnerSolutionId, which tokens do not have', () => {
    expect(rejection(() => validateTokenRequest({ partnerSolutionId: 'x', sourceOfFunds: { type: 'CARD' } }))).toMatchObject({
      field: 'partnerSolutionId',
      validationType: 'UNSUPPORTED',
    });
  });
});

describe('device.ipAddress', () => {
  const card = { type: 'CARD', provided: { card: { number: '5123450000000008' } } };
  const token = (ipAddress: string) => () => validateTokenRequest({ sourceOfFunds: card, device: { ipAddress } });
  const refund = (ipAddress: string) => () =>
    validateOrderOperationRequest('REFUND', { apiOperation: 'REFUND', transaction: { amount: '1', currency: 'USD' }, device: { ipAddress } });

  it('is nnn.nnn.nnn.nnn on a token, leading zeros allowed', () => {
    for (const ipAddress of ['192.168.001.001', '10.0.0.1', '255.255.255.255']) {
      expect(token(ipAddress)().device?.ipAddress).toBe(ipAddress);
    }
    for (const ipAddress of ['192.168.1', '192.168.0001.1', 'abcdefg']) {
      expect(rejection(token(ipAddress))).toMatchObject({ field: 'device.ipAddress', validationType: 'INVALID' });
    }
  });

  it('is a plain String(7-15) on a refund, as the spec types it there', () => {
    for (const ipAddress of ['192.168.001.001', 'abcdefg', '::ffff:10.0.0.1']) {
      expect(refund(ipAddress)().device?.ipAddress).toBe(ipAddress);
    }
    for (const ipAddress of ['1.2.3', '1234567890123456']) {
      expect(rejection(refund(ipAddress))).toMatchObject({ field: 'device.ipAddress', validationType: 'INVALID' });
    }
  });
});

describe('readApiOperation', () => {
  it('reports a missing apiOperation as MISSING and an unknown one as INVALID', () => {
    expect(rejection(() => readApiOperation({}))).toMatchObject({ field: 'apiOperation', validationType: 'MISSING' });
    expect(rejection(() => readApiOperation({ apiOperation: 'verify' }))).toMatchObject({ field: 'apiOperation', validationType: 'INVALID' });
    expect(rejection(() => readApiOperation({ apiOperation: 7 }))).toMatchObject({ field: 'apiOperation', validationType: 'INVALID' });
  });
});

describe('request classes', () => {
  it.each([
    ['SaveTokenRequest', SaveTokenRequest],
    ['RefundRequest', RefundRequest],
    ['InitiateBrowserPaymentRequest', InitiateBrowserPaymentRequest],
    ['ConfirmBrowserPaymentRequest', ConfirmBrowserPaymentRequest],
    ['VerifyRequest', VerifyRequest],
  ])('%s carries the shared fields', (_name, target) => {
    const paths = describeRequest(target).map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining(['correlationId', 'responseControls.sensitiveData', 'session.id', 'session.version', 'order.notificationUrl', 'customer.email']),
    );
    expect(paths.includes('partnerSolutionId')).toBe(target !== SaveTokenRequest);
  });

  it('marks card number, security code, track data and p2pe payload sensitive wherever they appear', () => {
    for (const target of [SaveTokenRequest, RefundRequest, VerifyRequest]) {
      for (const field of describeRequest(target)) {
        if (/\.(number|securityCode|track1|track2|payload)$/.test(field.path) && field.path.startsWith('sourceOfFunds.provided.card')) {
          expect([field.path, field.sensitive]).toEqual([field.path, true]);
        }
      }
    }
  });
});
