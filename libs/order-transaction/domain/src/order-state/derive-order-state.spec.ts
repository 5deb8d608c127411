import type { TransactionResult, TransactionType } from '@gateway/contracts';
import { Money } from '@gateway/money';
import { amountOf, deriveOrderState, deriveTotals, LedgerEntry, sumOf } from './derive-order-state';

/** deriveTotals as it was before the one-pass version: six filtered sums, each entry parsed again. */
function referenceTotals(currency: string, entries: readonly LedgerEntry[]) {
  const sum = (types: TransactionType[]) =>
    entries
      .filter((e) => types.includes(e.type) && e.result === 'SUCCESS')
      .reduce((total, e) => total.plus(Money.of(e.amount, currency)), Money.zero(currency));
  return {
    totalAuthorizedAmount: sum(['AUTHORIZATION', 'AUTHORIZATION_UPDATE', 'PAYMENT']).minus(sum(['VOID_AUTHORIZATION', 'VOID_PAYMENT'])),
    totalCapturedAmount: sum(['CAPTURE', 'PAYMENT']).minus(sum(['VOID_CAPTURE', 'VOID_PAYMENT'])),
    totalRefundedAmount: sum(['REFUND']).minus(sum(['VOID_REFUND'])),
  };
}

const entry = (type: TransactionType, amount: string, result: TransactionResult = 'SUCCESS'): LedgerEntry => ({ type, amount, result });

/** The exact decimals as text, sign of zero included, so equal-looking amounts cannot hide a difference. */
const exact = (totals: Record<string, Money>) =>
  Object.fromEntries(Object.entries(totals).map(([k, m]) => [k, `${m.amount.isNegative() ? '-' : '+'}${m.amount.toFixed()} ${m.currency}`]));

describe('deriveTotals (one pass) against the six-sum derivation', () => {
  const cases: [string, string, LedgerEntry[]][] = [
    ['no transactions', 'USD', []],
    ['a captured payment, partly refunded, a refund voided', 'USD', [
      entry('PAYMENT', '100.10'), entry('REFUND', '30.05'), entry('REFUND', '10.00'), entry('VOID_REFUND', '10.00'), entry('REFUND', '5', 'FAILURE'),
    ]],
    ['authorisations, an update, captures, voids of each, open and failed ones', 'USD', [
      entry('AUTHORIZATION', '50.00'), entry('AUTHORIZATION_UPDATE', '25.50'), entry('CAPTURE', '40'), entry('CAPTURE', '9.99', 'PENDING'),
      entry('VOID_CAPTURE', '40'), entry('CAPTURE', '75.5'), entry('VOID_AUTHORIZATION', '0.5', 'UNKNOWN'), entry('VOID_PAYMENT', '1', 'FAILURE'),
    ]],
    ['a voided payment (both totals back to zero)', 'EUR', [entry('PAYMENT', '12.34'), entry('VOID_PAYMENT', '12.34')]],
    ['negative amounts', 'USD', [entry('PAYMENT', '-5.25'), entry('REFUND', '-0.01'), entry('AUTHORIZATION', '-0'), entry('VOID_AUTHORIZATION', '-0')]],
    ['a 0-decimal currency', 'JPY', [entry('AUTHORIZATION', '1000'), entry('CAPTURE', '999'), entry('REFUND', '1'), entry('REFUND', '998'), entry('VOID_REFUND', '1')]],
    ['a 3-decimal currency', 'BHD', [entry('PAYMENT', '10.125'), entry('REFUND', '0.001'), entry('REFUND', '10.124'), entry('VOID_PAYMENT', '0.005')]],
    ['a 4-decimal currency', 'CLF', [entry('PAYMENT', '1.2345'), entry('REFUND', '0.0001')]],
    ['large amounts', 'USD', [
      entry('AUTHORIZATION', '1000000000000'), entry('AUTHORIZATION', '999999999999.99'), entry('CAPTURE', '1000000000000'),
      entry('CAPTURE', '999999999999.99'), entry('REFUND', '1999999999999.99'), entry('REFUND', '0.01'), entry('VOID_CAPTURE', '0.01'),
    ]],
    ['many small amounts', 'USD', Array.from({ length: 200 }, (_, i) => entry(i % 3 === 0 ? 'REFUND' : 'CAPTURE', `0.${String(i % 100).padStart(2, '0')}`))],
  ];

  it.each(cases)('%s', (_, currency, entries) => {
    expect(exact({ ...deriveTotals(currency, entries) })).toEqual(exact(referenceTotals(currency, entries)));
    // Again, now every amount is parsed already.
    expect(exact({ ...deriveTotals(currency, entries) })).toEqual(exact(referenceTotals(currency, entries)));
  });

  it('refuses an amount that is not a decimal, or has more decimals than the currency, as Money.of does', () => {
    expect(() => deriveTotals('USD', [entry('PAYMENT', '1.005')])).toThrow(expect.objectContaining({ code: 'TOO_MANY_DECIMALS' }));
    expect(() => deriveTotals('JPY', [entry('CAPTURE', '1.5')])).toThrow(expect.objectContaining({ code: 'TOO_MANY_DECIMALS' }));
    expect(() => deriveTotals('USD', [entry('REFUND', '1e3')])).toThrow(expect.objectContaining({ code: 'NOT_A_DECIMAL' }));
    // A transaction no total counts is not parsed, as before.
    expect(() => deriveTotals('USD', [entry('REFUND', 'x', 'FAILURE'), entry('VERIFICATION', 'x')])).not.toThrow();
  });

  it('gives the status the totals give', () => {
    expect(deriveOrderState('BHD', [entry('PAYMENT', '10.125'), entry('REFUND', '10.125')]).status).toBe('REFUNDED');
    expect(deriveOrderState('JPY', [entry('AUTHORIZATION', '1000'), entry('CAPTURE', '999')]).status).toBe('PARTIALLY_CAPTURED');
  });
});

describe('amountOf', () => {
  it('parses an entry once and reuses it', () => {
    const e = entry('CAPTURE', '10.50');
    const first = amountOf('USD', e);
    expect(first.toFixed()).toBe('10.50');
    expect(amountOf('USD', e)).toBe(first);
  });

  it('parses again when the entry\'s amount text changed or another currency is asked for', () => {
    const e = entry('CAPTURE', '10.50');
    const usd = amountOf('USD', e);
    e.amount = '11';
    expect(amountOf('USD', e).toFixed()).toBe('11.00');
    expect(amountOf('JPY', e).currency).toBe('JPY');
    expect(amountOf('JPY', e).toFixed()).toBe('11');
    e.amount = '10.5';
    expect(() => amountOf('JPY', e)).toThrow(expect.objectContaining({ code: 'TOO_MANY_DECIMALS' }));
    expect(amountOf('USD', e).equals(usd)).toBe(true);
  });

  it('sumOf counts the types and results asked for, each amount exactly', () => {
    const entries = [entry('REFUND', '0.1'), entry('REFUND', '0.2', 'PENDING'), entry('REFUND', '0.3', 'FAILURE'), entry('CAPTURE', '7')];
    expect(sumOf('USD', entries, ['REFUND'], ['SUCCESS', 'PENDING']).toFixed()).toBe('0.30');
    expect(sumOf('USD', entries, ['REFUND']).toFixed()).toBe('0.10');
    expect(sumOf('KWD', [entry('REFUND', '-1.001'), entry('REFUND', '1.002')], ['REFUND']).toFixed()).toBe('0.001');
  });
});
