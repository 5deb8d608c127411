import fc from 'fast-check';
import { minorUnits, Money } from '@gateway/money';
import { amountOutcome, isPartialApprovalAmount } from './amount-outcomes';

/** An amount given in minor units, written as the decimal text of its currency. */
function fromMinorUnits(units: bigint, currency: string): Money {
  const exponent = minorUnits(currency)!;
  const digits = units.toString().padStart(exponent + 1, '0');
  const text = exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
  return Money.of(text, currency);
}

const CURRENCIES = ['USD', 'JPY', 'BHD', 'EUR', 'KWD', 'CLF'] as const;

describe('test acquirer partial approvals (amount outcomes)', () => {
  it('approves half of any amount ending in 51 minor units, rounded down to the currency, never zero (property)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 13n }),
        fc.constantFrom(...CURRENCIES),
        (hundreds, currency) => {
          const units = hundreds * 100n + 51n;
          const requested = fromMinorUnits(units, currency);
          const answer = amountOutcome(requested, true)!;
          expect(answer.outcome.gatewayCode).toBe('PARTIALLY_APPROVED');
          // Half rounded down, in whole minor units: (units - 1) / 2, as units is odd.
          expect(answer.approvedAmount.equals(fromMinorUnits((units - 1n) / 2n, currency))).toBe(true);
          expect(answer.approvedAmount.isPositive()).toBe(true);
          expect(answer.approvedAmount.lessThan(requested)).toBe(true);
        },
      ),
    );
  });

  it('leaves every other amount to the card (property)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 15n }),
        fc.constantFrom(...CURRENCIES),
        fc.boolean(),
        (units, currency, accept) => {
          fc.pre(units % 100n !== 51n);
          expect(isPartialApprovalAmount(fromMinorUnits(units, currency))).toBe(false);
          expect(amountOutcome(fromMinorUnits(units, currency), accept)).toBeUndefined();
        },
      ),
    );
  });

  it('declines with INSUFFICIENT_FUNDS for the full amount when a partial approval is not accepted', () => {
    const requested = Money.of('10.51', 'USD');
    expect(amountOutcome(requested, false)).toEqual({
      outcome: expect.objectContaining({ gatewayCode: 'INSUFFICIENT_FUNDS', acquirerCode: '51' }),
      approvedAmount: requested,
    });
  });
});
