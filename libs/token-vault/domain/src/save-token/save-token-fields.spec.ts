import { GatewayError } from '@gateway/contracts';
import { TEST_CARD } from '@gateway/testing';
import { readSaveTokenFields } from './save-token-fields';

function errorOf(body: Record<string, unknown>): GatewayError {
  try {
    readSaveTokenFields(body as never);
  } catch (err) {
    return err as GatewayError;
  }
  throw new Error('expected a field error');
}

describe('readSaveTokenFields (interim, until SaveTokenRequest)', () => {
  it('reads a card request', () => {
    const fields = readSaveTokenFields({
      sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: { month: '1', year: '39' }, securityCode: '100' } } },
      verificationStrategy: 'BASIC',
      billing: { address: { city: 'Town' } },
    });
    expect(fields.sourceOfFunds.provided?.card).toMatchObject({ number: TEST_CARD, expiry: { month: '1', year: '39' } });
    expect(fields.verificationStrategy).toBe('BASIC');
    expect(fields.billing).toEqual({ address: { city: 'Town' } });
  });

  it.each([
    [{}, 'sourceOfFunds', 'MISSING'],
    [{ sourceOfFunds: 'CARD' }, 'sourceOfFunds', 'INVALID'],
    [{ sourceOfFunds: { type: 'BANK' } }, 'sourceOfFunds.type', 'INVALID'],
    [{ sourceOfFunds: { token: 'has space' } }, 'sourceOfFunds.token', 'INVALID'],
    [{ sourceOfFunds: { provided: { card: { number: 5123450000000008 } } } }, 'sourceOfFunds.provided.card.number', 'INVALID'],
    [{ sourceOfFunds: { provided: { card: { expiry: { month: '13', year: '39' } } } } }, 'sourceOfFunds.provided.card.expiry.month', 'INVALID'],
    [{ sourceOfFunds: { provided: { card: { expiry: { month: '1' } } } } }, 'sourceOfFunds.provided.card.expiry.year', 'MISSING'],
    [{ sourceOfFunds: { provided: { card: { p2pe: { payload: 'AB'.repeat(16) } } } } }, 'sourceOfFunds.provided.card.p2pe.keySerialNumber', 'MISSING'],
    [{ sourceOfFunds: { provided: { provider_a: { billingAgreement: { id: 'B-1' } } } } }, 'sourceOfFunds.provided.provider_a.billingAgreement.cardinality', 'MISSING'],
    [{ sourceOfFunds: {}, verificationStrategy: 'FULL' }, 'verificationStrategy', 'INVALID'],
    [{ sourceOfFunds: {}, transaction: { currency: 'usd' } }, 'transaction.currency', 'INVALID'],
  ])('reports %j as %s %s', (body, field, validationType) => {
    const error = errorOf(body);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: 'INVALID_FIELD', field, validationType });
  });

  it('never echoes a card number, security code or p2pe payload', () => {
    const number = errorOf({ sourceOfFunds: { provided: { card: { number: `${TEST_CARD}X` } } } });
    const code = errorOf({ sourceOfFunds: { provided: { card: { securityCode: '10000' } } } });
    const payload = errorOf({ sourceOfFunds: { provided: { card: { p2pe: { keySerialNumber: 'F'.repeat(20), payload: 'XYZ'.repeat(12) } } } } });
    expect(number.explanation).not.toContain(TEST_CARD);
    expect(code.explanation).not.toContain('10000');
    expect(payload.explanation).not.toContain('XYZ');
    expect(number.explanation).toBe('The value is invalid. A card number is 9 to 19 digits.');
  });
});
