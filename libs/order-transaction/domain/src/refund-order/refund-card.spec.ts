import { RefundCard } from '@gateway/contracts';
import { TEST_CARD, TEST_CARD_LUHN_FAILURE, TEST_CARD_UNKNOWN_BIN } from '@gateway/testing';
import { refusal } from '../card-operation/testing-orders';
import { acquirerCardOf, requestCard } from './refund-card';

/** ISO/IEC 7813 track 2 of the test card, expiry 01/39 (YYMM 3901), service code 201. */
const TRACK2 = `;${TEST_CARD}=39012010000000000?5`;

describe('the card a refund request gives', () => {
  it('is the explicit fields, with the security code only as a SecurityCode for the acquirer', () => {
    const card = requestCard({ number: TEST_CARD, expiry: { month: '01', year: '39' }, securityCode: '100', sequenceNumber: '1' } as RefundCard);
    expect(card).toEqual({
      number: TEST_CARD,
      expiry: { month: '01', year: '39' },
      securityCode: '100',
      sequenceNumber: '1',
      trackDataProvided: false,
    });
    const acquirerCard = acquirerCardOf(card);
    expect(acquirerCard.number.reveal()).toBe(TEST_CARD);
    expect(acquirerCard.expiry).toEqual({ month: 1, year: 39 });
    expect(JSON.stringify(acquirerCard)).not.toContain(TEST_CARD);
    expect(JSON.stringify(acquirerCard)).not.toContain('"100"');
  });

  it('reads number and expiry from track 2 when the request has only the track (card present)', () => {
    const card = requestCard({ track2: TRACK2 } as RefundCard);
    expect(card).toEqual({ number: TEST_CARD, expiry: { month: '1', year: '39' }, trackDataProvided: true });
    expect(acquirerCardOf(card).number.masked).toBe('512345xxxxxx0008');
  });

  it('refuses track 2 that does not match the number or expiry given, without repeating either', () => {
    for (const card of [
      { number: TEST_CARD_UNKNOWN_BIN, track2: TRACK2 },
      { number: TEST_CARD, expiry: { month: '2', year: '39' }, track2: TRACK2 },
    ]) {
      const err = refusal(() => requestCard(card as RefundCard));
      expect(err).toMatchObject({ field: 'sourceOfFunds.provided.card.track2', validationType: 'INVALID' });
      expect(err.explanation).toBe('Value is invalid. Track 2 data must match the card number and expiry in the request.');
    }
    expect(requestCard({ number: TEST_CARD, expiry: { month: '01', year: '39' }, track2: TRACK2 } as RefundCard)?.number).toBe(TEST_CARD);
  });

  it('refuses track 2 that is not track 2', () => {
    for (const track2 of ['%B5123450000000008^CARDHOLDER^3901?', `;${TEST_CARD}=3913201?`, `;${TEST_CARD}=3900201?`]) {
      const err = refusal(() => requestCard({ track2 } as RefundCard));
      expect(err.field).toBe('sourceOfFunds.provided.card.track2');
      expect(err.explanation).not.toContain(TEST_CARD);
    }
  });

  it('refuses track 2 whose card number fails Luhn, as the card number field would', () => {
    const err = refusal(() => requestCard({ track2: `;${TEST_CARD_LUHN_FAILURE}=39012010000000000?5` } as RefundCard));
    expect(err).toMatchObject({ field: 'sourceOfFunds.provided.card.track2', validationType: 'INVALID' });
    expect(err.explanation).not.toContain(TEST_CARD_LUHN_FAILURE);
  });

  it('needs a number and an expiry to go to the acquirer', () => {
    expect(refusal(() => acquirerCardOf(undefined)).field).toBe('sourceOfFunds.provided.card.number');
    expect(refusal(() => acquirerCardOf({ number: TEST_CARD, trackDataProvided: false })).field).toBe('sourceOfFunds.provided.card.expiry');
  });
});
