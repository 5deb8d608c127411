import { validateTokenRequest } from '@gateway/contracts';
import { Pan } from '@gateway/crypto';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { CardExpiry } from '../cards/card-expiry';
import { testMerchant } from '../testing/vault-test-bed';
import { repositoryPolicy } from '../repository/repository-policy';
import { randomToken } from '../token-formats/token-formats';
import { addressedToken, checkTokenIsNotTheCard, generateToken, unknownTokenError } from './save-token.rules';

jest.mock('../token-formats/token-formats', () => {
  const actual = jest.requireActual('../token-formats/token-formats');
  return { ...actual, randomToken: jest.fn(actual.randomToken) };
});

const draw = randomToken as jest.MockedFunction<typeof randomToken>;
const card = (number: string) => ({ type: 'CARD' as const, pan: Pan.of(number), expiry: CardExpiry.of(TEST_EXPIRY.APPROVED.month, TEST_EXPIRY.APPROVED.year) });

describe('generateToken: a Random token is never the card it holds', () => {
  it('draws again when the token drawn is the card number', () => {
    // Only an unverified number could ever be drawn (Random tokens start with 9); forced here.
    draw.mockReturnValueOnce(TEST_CARD).mockReturnValueOnce('9123450000000005');
    expect(generateToken(repositoryPolicy(testMerchant({ generation: 'RANDOM' })), card(TEST_CARD))).toBe('9123450000000005');
    expect(draw).toHaveBeenCalledTimes(2);
  });
});

describe('checkTokenIsNotTheCard', () => {
  it('refuses the card number on the field it is given, without echoing it', () => {
    expect(() => checkTokenIsNotTheCard(TEST_CARD, card(TEST_CARD), 'tokenid', false)).toThrow(
      expect.objectContaining({ code: 'INVALID_FIELD', field: 'tokenid', validationType: 'INVALID', explanation: expect.not.stringContaining(TEST_CARD) }),
    );
    expect(() => checkTokenIsNotTheCard('merchantToken1', card(TEST_CARD), 'tokenid', false)).not.toThrow();
  });

  it('refuses a generated token only when it is the card itself', () => {
    // A Preserve 6.4 token shares the card's first six and last four digits and its length.
    expect(() => checkTokenIsNotTheCard('5123459999990008', card(TEST_CARD), 'tokenid', false)).not.toThrow();
  });

  it('refuses a token the merchant chose that matches the card\'s masked number, the same way as the card itself', () => {
    // Answering only the card itself would tell a merchant probing ids for a session's card whether it guessed it.
    const refusal = (token: string) => {
      try {
        checkTokenIsNotTheCard(token, card(TEST_CARD), 'tokenid', true);
      } catch (err) {
        return err;
      }
      return null;
    };
    expect(refusal(TEST_CARD)).toMatchObject({ code: 'INVALID_FIELD', field: 'tokenid', validationType: 'INVALID' });
    expect(refusal('5123459999990008')).toEqual(refusal(TEST_CARD));
    expect(refusal('5123451111110008')).toEqual(refusal(TEST_CARD));
    expect((refusal(TEST_CARD) as Error).message).not.toContain(TEST_CARD);
    // Ids that differ where the mask shows digits, in length, or that are not all digits, are the merchant's to use.
    for (const token of ['5123450000000009', '4123450000000008', '51234500000000008', 'A123450000000008', '512345ABCDEF0008', 'merchantToken1']) {
      expect(refusal(token)).toBeNull();
    }
  });
});

describe('the ids a save refuses, quoted masked', () => {
  it('masks a card number given as the token in the refusals that quote it', () => {
    const repository = repositoryPolicy(testMerchant({ generation: 'RANDOM' }));
    expect(() => addressedToken(TEST_CARD, validateTokenRequest({ sourceOfFunds: { token: '4111111111111111' } }), repository)).toThrow(
      expect.objectContaining({ field: 'sourceOfFunds.token', explanation: "Value '411111xxxxxx1111' is invalid. It must be the token in the request path." }),
    );
    expect(unknownTokenError(TEST_CARD, repository).explanation).toBe(
      "Token '512345xxxxxx0008' does not exist in repository Test1000000001. This repository generates its tokens: create them with POST .../token.",
    );
  });
});
