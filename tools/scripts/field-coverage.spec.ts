import { readFileSync } from 'node:fs';
import path from 'node:path';
import { analyse } from './field-coverage';
import { canonicalType, extractRequestFields } from './spec-request-fields';

const SPEC = readFileSync(path.resolve(__dirname, '../../docs/spec/gateway-api.md'), 'utf8');

describe('spec request fields', () => {
  const fields = extractRequestFields(SPEC);
  const field = (operation: string, fieldPath: string) => fields.find((f) => f.operation === operation && f.path === fieldPath);

  it('reads every operation, shared fields included', () => {
    for (const operation of ['TOKEN', 'REFUND', 'INITIATE_BROWSER_PAYMENT', 'CONFIRM_BROWSER_PAYMENT', 'VERIFY']) {
      expect(field(operation, 'correlationId')).toMatchObject({ notation: 'String(1-100)', requirement: 'OPTIONAL' });
      expect(field(operation, 'partnerSolutionId') === undefined).toBe(operation === 'TOKEN');
    }
  });

  it('reads tables, expanded groups, "as refund" types, the confirm paragraph and the verify prose', () => {
    expect(field('TOKEN', 'sourceOfFunds.provided.card.p2pe.keySerialNumber')).toMatchObject({ notation: 'Hex(20-20)', requirement: 'REQUIRED' });
    expect(field('REFUND', 'sourceOfFunds.provided.card.expiry.year')).toMatchObject({ notation: 'Digits(2-2)', requirement: 'REQUIRED' });
    expect(field('REFUND', 'transaction.item[n].quantity')).toMatchObject({ notation: 'Digits(value 1-9999999999999999)' });
    expect(field('REFUND', 'billing.address.stateProvinceCode')).toBeUndefined();
    expect(field('INITIATE_BROWSER_PAYMENT', 'shipping.contact.phone')).toMatchObject({ notation: 'String(1-20)' });
    expect(field('INITIATE_BROWSER_PAYMENT', 'sourceOfFunds.type')).toMatchObject({ notation: 'Enum(PROVIDER_A|PROVIDER_B|PROVIDER_C)' });
    expect(field('CONFIRM_BROWSER_PAYMENT', 'order.amount')).toMatchObject({ notation: 'DecIn', requirement: 'OPTIONAL' });
    expect(field('VERIFY', 'authentication.3ds2.acsTransactionId')).toMatchObject({ notation: 'String(36-36)' });
    expect(field('VERIFY', 'order.transactionFiltering.avsResponseCodeRules[n].action')).toMatchObject({ requirement: 'REQUIRED' });
    expect(field('VERIFY', 'shipping.address.stateProvinceCode')).toBeDefined();
    expect(field('VERIFY', 'posTerminal.address.stateProvinceCode')).toBeUndefined();
    expect(field('VERIFY', 'agreement.specify')).toBeUndefined();
  });

  it('writes types in the field types\' notation', () => {
    expect(canonicalType('x', 'Digits, value 0-999')).toBe('Digits(value 0-999)');
    expect(canonicalType('x', 'enum GIROPAY-kind PROVIDER_B, PROVIDER_A')).toBe('Enum(PROVIDER_A|PROVIDER_B)');
    expect(canonicalType('x', 'enum MULTIPLE (new agreement id per request), SINGLE (same id each request)')).toBe('Enum(MULTIPLE|SINGLE)');
    expect(canonicalType('device.ipAddress', 'String(7-15) nnn.nnn.nnn.nnn')).toBe('IPv4');
    expect(canonicalType('device.ipAddress', 'String(7-15)')).toBe('String(7-15)');
    expect(canonicalType('x', 'Base64 of length 28 or 32')).toBe('Base64(28|32)');
  });
});

describe('field coverage', () => {
  it('finds every spec field validated and tested', () => {
    expect(analyse(extractRequestFields(SPEC)).problems).toEqual([]);
  });

  it('fails when a validator no longer matches the spec\'s type', () => {
    const changed = SPEC.replace('| customer.taxRegistrationId | String(1-30) |', '| customer.taxRegistrationId | String(1-31) |');
    expect(analyse(extractRequestFields(changed)).problems).toEqual([
      'TOKEN customer.taxRegistrationId: validator type String(1-30), the spec says String(1-31) ("String(1-31)")',
    ]);
  });

  it('fails when the spec lists a field no request class validates', () => {
    const changed = SPEC.replace('| userId | String(1-256) | OPT | initiating person |', '| userId | String(1-256) | OPT | initiating person |\n| order.giftMessage | String(1-100) | OPT | |');
    expect(analyse(extractRequestFields(changed)).problems).toEqual(['REFUND order.giftMessage: no validator']);
  });

  it('fails when a REQUIRED field becomes optional in the code', () => {
    const changed = SPEC.replace('| browserPayment.returnUrl | Url | REQUIRED |', '| browserPayment.returnUrl | Url | OPT |');
    expect(analyse(extractRequestFields(changed)).problems).toEqual([
      'INITIATE_BROWSER_PAYMENT browserPayment.returnUrl: validator requires it, the spec says OPTIONAL',
    ]);
  });
});
