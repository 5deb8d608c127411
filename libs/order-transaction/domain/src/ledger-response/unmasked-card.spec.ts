import { TEST_CARD } from '@gateway/testing';
import { withCardNumber } from './unmasked-card';

describe('withCardNumber', () => {
  it('shows the full number in the reply only, leaving the stored (masked) body as it was', () => {
    const stored = { result: 'SUCCESS', sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008', brand: 'MASTERCARD' } } } };
    expect(withCardNumber(stored, TEST_CARD)).toEqual({
      result: 'SUCCESS',
      sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, brand: 'MASTERCARD' } } },
    });
    expect(stored.sourceOfFunds.provided.card.number).toBe('512345xxxxxx0008');
  });

  it('adds no card to a body that shows none (a token alone, a provider)', () => {
    const body = { sourceOfFunds: { type: 'CARD', token: 'merchant-token-1' } };
    expect(withCardNumber(body, TEST_CARD)).toBe(body);
  });
});
