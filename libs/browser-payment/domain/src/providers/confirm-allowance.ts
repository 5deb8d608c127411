import { type Money, sumDecimals } from '@gateway/money';

/**
 * How far above the payer's approval a provider lets a merchant's confirm execute
 * (ProviderAdapter.highestConfirmable): a proportion of the approved amount. Decimal text, so the
 * limit is computed exactly (Money), never in binary floating point.
 */
export interface ConfirmAllowance {
  /** The most a confirm may add, as a proportion of the approved amount: '0.15' (115% in all), '0' (no increase). */
  readonly increase: string;
}

export const NO_INCREASE: ConfirmAllowance = { increase: '0' };

/**
 * The built-in simulators let a confirm go up to 115% of the approved amount, as a wallet that
 * allows shipping or tax to be added after the payer approved does (PayPal captures up to 115%).
 * A real provider's adapter states its own rule (a cap in money, a currency's own limit, none).
 */
export const SIMULATOR_ALLOWANCE: ConfirmAllowance = { increase: '0.15' };

/**
 * The highest amount a confirm may execute: `approved` plus the allowance, rounded down to the
 * digits an amount of the currency has, so it is never above what the provider allows and a
 * merchant can send it as it is (30.00 EUR: 34.50; 19.99 USD: 22.98, not 22.99).
 */
export function highestConfirmable(approved: Money, allowance: ConfirmAllowance): Money {
  const ceiling = approved.timesRoundedDown(sumDecimals(['1', allowance.increase]));
  // Never below the approval itself (no increase, or an amount finer than the rounding).
  return ceiling.lessThan(approved) ? approved : ceiling;
}
