import { AUTH_METHODS, AuthMethod } from '../envelope';
import { GatewayError } from '../errors';
import { defaultMerchantSettings, MerchantContext } from '../merchant-context';
import { unmaskRequested } from './response-controls';

function merchant(unmask: boolean): MerchantContext {
  const settings = defaultMerchantSettings();
  return { id: 'RULE', mode: 'TEST', settings: { ...settings, privileges: { ...settings.privileges, unmask } } };
}

const UNMASK = { responseControls: { sensitiveData: 'UNMASK' } };

function refusal(run: () => unknown): Record<string, unknown> {
  try {
    run();
  } catch (err) {
    if (err instanceof GatewayError) {
      return { status: err.httpStatus, cause: err.errorCause, field: err.field, validationType: err.validationType };
    }
    throw err;
  }
  throw new Error('expected UNMASK to be refused');
}

describe('unmaskRequested: the one UNMASK rule of every operation (ARCHITECTURE 6)', () => {
  it('shows full numbers with the permission, certificate authentication and UNMASK', () => {
    expect(unmaskRequested(UNMASK, merchant(true), 'CERTIFICATE')).toBe(true);
  });

  it.each(AUTH_METHODS.filter((m) => m !== 'CERTIFICATE'))('refuses UNMASK with %s authentication, even with the permission', (method) => {
    expect(refusal(() => unmaskRequested(UNMASK, merchant(true), method))).toEqual({
      status: 400,
      cause: 'INVALID_REQUEST',
      field: 'responseControls.sensitiveData',
      validationType: 'INVALID',
    });
  });

  it('refuses UNMASK with a certificate when the merchant lacks the permission', () => {
    expect(refusal(() => unmaskRequested(UNMASK, merchant(false), 'CERTIFICATE'))).toMatchObject({ status: 400, field: 'responseControls.sensitiveData' });
  });

  it.each<[string, object]>([
    ['no responseControls', {}],
    ['no sensitiveData', { responseControls: {} }],
    ['another value', { responseControls: { sensitiveData: 'MASK' } }],
    ['a different case', { responseControls: { sensitiveData: 'unmask' } }],
  ])('masks, without asking for anything, with %s', (_name, request) => {
    for (const method of AUTH_METHODS as readonly AuthMethod[]) {
      expect(unmaskRequested(request, merchant(false), method)).toBe(false);
    }
  });
});
