import type { TransactionResult, TransactionType } from '@gateway/contracts';
import { isCardReservationRow, isReservationRow } from './card-reservations';

type Row = { result: TransactionResult; gatewayCode: string; type: TransactionType; fundingType: string | null };

/** A card PAYMENT reserved before its acquirer call, and each way of not being one. */
const RESERVED: Row = { result: 'PENDING', gatewayCode: 'PENDING', type: 'PAYMENT', fundingType: 'CARD' };

describe('the reservation rule (card-reservations.ts)', () => {
  it('is a transaction written PENDING with gateway code PENDING, of any type but a refund request', () => {
    for (const type of ['AUTHORIZATION', 'PAYMENT', 'CAPTURE', 'REFUND', 'VOID_PAYMENT'] as const) {
      expect(isReservationRow({ ...RESERVED, type })).toBe(true);
      expect(isCardReservationRow({ ...RESERVED, type })).toBe(true);
    }
  });

  it.each<[string, Partial<Row>]>([
    ['a refund request waiting for approval (recorded PENDING, no acquirer call)', { type: 'REFUND_REQUEST' }],
    ['a transaction whose result alone is PENDING (an acquirer answered SUBMITTED)', { gatewayCode: 'SUBMITTED' }],
    ['a transaction whose gateway code alone is PENDING', { result: 'UNKNOWN' }],
    ['a completed one', { result: 'SUCCESS', gatewayCode: 'APPROVED' }],
  ])('is not %s', (_what, change) => {
    expect(isReservationRow({ ...RESERVED, ...change })).toBe(false);
    expect(isCardReservationRow({ ...RESERVED, ...change })).toBe(false);
  });

  it.each<[string, string | null]>([
    ["a browser payment's, waiting at its provider", 'PROVIDER_A'],
    ['one with no funding recorded', null],
  ])('as a card reservation, is not %s, though it is written as a reservation is', (_what, fundingType) => {
    const row: Row = { ...RESERVED, fundingType };
    expect(isReservationRow(row)).toBe(true);
    expect(isCardReservationRow(row)).toBe(false);
  });
});
