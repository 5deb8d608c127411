import { ExplicitCardFields, GatewayError } from '@gateway/contracts';
import { Pan, Secret } from '@gateway/crypto';
import { TEST_CARD, TEST_CARD_SECOND, TEST_CARD_UNKNOWN_BIN } from '@gateway/testing';
import { CardExpiry } from '../cards/card-expiry';
import type { CardInstrument } from '../instrument/instrument';
import type { SessionCard } from '../session-cards/session-card-sealing';
import { completeCard } from './complete-card';

const token: CardInstrument = { type: 'CARD', pan: Pan.of(TEST_CARD_UNKNOWN_BIN), expiry: CardExpiry.of('4', '27') };
const session: SessionCard = {
  number: Pan.of(TEST_CARD_SECOND),
  expiry: { month: '5', year: '39' },
  securityCode: new Secret('101'),
  nameOnCard: 'Session Name',
};
const explicit: ExplicitCardFields = { number: TEST_CARD, expiry: { month: '01', year: '39' }, securityCode: '102', nameOnCard: 'Explicit Name' };

function thrown(run: () => unknown): GatewayError {
  try {
    run();
  } catch (err) {
    return err as GatewayError;
  }
  throw new Error('expected an error');
}

describe('completeCard', () => {
  it('takes each field from the request first, then the session, then the token', () => {
    const all = completeCard({ explicit, session, token });
    expect(all.number.reveal()).toBe(TEST_CARD);
    expect(all.expiry).toEqual({ month: 1, year: 39 });
    expect(all.securityCode?.reveal()).toBe('102');
    expect(all.nameOnCard).toBe('Explicit Name');

    const sessionOverToken = completeCard({ explicit: { securityCode: '100' }, session, token });
    expect(sessionOverToken.number.reveal()).toBe(TEST_CARD_SECOND);
    expect(sessionOverToken.expiry).toEqual({ month: 5, year: 39 });
    expect(sessionOverToken.securityCode?.reveal()).toBe('100');
    expect(sessionOverToken.nameOnCard).toBe('Session Name');
  });

  it('completes a token card with an expiry from the session or the request', () => {
    const fromToken = completeCard({ token });
    expect(fromToken.number.reveal()).toBe(TEST_CARD_UNKNOWN_BIN);
    expect(fromToken.expiry).toEqual({ month: 4, year: 27 });
    expect(fromToken.securityCode).toBeUndefined();

    const tokenWithoutExpiry: CardInstrument = { ...token, expiry: null };
    expect(completeCard({ token: tokenWithoutExpiry, session: { expiry: { month: '12', year: '35' } } }).expiry).toEqual({ month: 12, year: 35 });
    expect(completeCard({ token: tokenWithoutExpiry, explicit: { expiry: { month: '8', year: '28' } } }).expiry).toEqual({ month: 8, year: 28 });
  });

  it('names the request field that would complete a card without an expiry', () => {
    const error = thrown(() => completeCard({ token: { ...token, expiry: null }, session: { securityCode: new Secret('100') } }));
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({
      code: 'INVALID_FIELD',
      field: 'sourceOfFunds.provided.card.expiry',
      validationType: 'MISSING',
      explanation: 'Missing parameter sourceOfFunds.provided.card.expiry: the card expiry is not in the request, the payment session or the token.',
    });
  });

  it('names the card number when no source has one', () => {
    const error = thrown(() => completeCard({ explicit: { expiry: { month: '1', year: '39' } }, session: { nameOnCard: 'Only A Name' } }));
    expect(error).toMatchObject({
      field: 'sourceOfFunds.provided.card.number',
      validationType: 'MISSING',
      explanation: 'Missing parameter sourceOfFunds.provided.card.number: the card number is not in the request or the payment session.',
    });
  });
});
