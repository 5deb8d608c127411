import { refusal } from '../../card-operation/testing-orders';
import { resolveCardType } from './card-type.rule';

const FIELD = 'sourceOfFunds.provided.card.cardType';

describe('cardType', () => {
  const constraint = { mode: 'CONSTRAINT' as const, cardTypes: ['CREDIT', 'DEBIT'] };
  const capability = { mode: 'CAPABILITY' as const, cardTypes: ['DEBIT', 'CREDIT'] };

  it('is rejected as UNSUPPORTED for a card that offers no card type selection', () => {
    const error = refusal(() => resolveCardType('CREDIT', undefined));
    expect(error).toMatchObject({ code: 'INVALID_FIELD', field: FIELD, validationType: 'UNSUPPORTED' });
    expect(resolveCardType(undefined, undefined)).toBeUndefined();
  });

  it('is mandatory when card type selection is an interaction constraint', () => {
    expect(refusal(() => resolveCardType(undefined, constraint))).toMatchObject({
      field: FIELD,
      validationType: 'MISSING',
    });
    expect(resolveCardType('DEBIT', constraint)).toBe('DEBIT');
  });

  it('is optional when it is a capability, the gateway choosing when absent', () => {
    expect(resolveCardType(undefined, capability)).toBe('DEBIT');
    expect(resolveCardType('CREDIT', capability)).toBe('CREDIT');
  });

  it('must be one of the types the card offers', () => {
    const error = refusal(() => resolveCardType('PREPAID', capability));
    expect(error).toMatchObject({ field: FIELD, validationType: 'INVALID' });
    expect(error.explanation).toBe("Value 'PREPAID' is invalid. The card type must be one of DEBIT, CREDIT.");
  });
});
