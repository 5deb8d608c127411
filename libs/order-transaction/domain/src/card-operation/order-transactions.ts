import { LedgerOrderView, LedgerTransactionView, TransactionType, VOID_TYPE_OF } from '@gateway/contracts';
import { Money } from '@gateway/money';
import { EXPOSED } from '../order-state/ledger-rules';

export type VoidableType = keyof typeof VOID_TYPE_OF;
export const VOIDABLE_TYPES = Object.keys(VOID_TYPE_OF) as readonly VoidableType[];

export function isVoidable(type: TransactionType): type is VoidableType {
  return Object.prototype.hasOwnProperty.call(VOID_TYPE_OF, type);
}

/**
 * Where an operation on an earlier transaction goes (docs/decisions/card-payment-rules.md):
 *   ACQUIRER  the merchant's card acquirer, by the target's acquirer reference;
 *   PROVIDER  browser-payment, which holds the target's money at its provider (a browser payment
 *             and what was recorded against it: fundingType PROVIDER_A, PROVIDER_B, PROVIDER_C).
 */
export type FundsRoute = 'ACQUIRER' | 'PROVIDER';

export function routeOf(target: Pick<LedgerTransactionView, 'fundingType'>): FundsRoute {
  return target.fundingType?.startsWith('PROVIDER_') ? 'PROVIDER' : 'ACQUIRER';
}

/** The void of `target` that succeeded or may still succeed (PENDING, UNKNOWN), if any. */
export function voidOf(order: LedgerOrderView, target: LedgerTransactionView): LedgerTransactionView | undefined {
  if (!isVoidable(target.type)) {
    return undefined;
  }
  const voidType = VOID_TYPE_OF[target.type];
  return order.transactions.find((t) => t.type === voidType && t.targetTransactionId === target.id && EXPOSED.includes(t.result));
}

/**
 * The transactions of `types` recorded against `target` (captures of an authorisation, refunds
 * of a capture or payment) that moved or may move money and stand: not voided by a void that
 * succeeded. One whose void is only under way still stands, since that void may yet fail
 * (the ledger's chain rule reads it the same way).
 */
export function dependentsOf(order: LedgerOrderView, target: LedgerTransactionView, types: readonly TransactionType[]): LedgerTransactionView[] {
  return order.transactions.filter(
    (t) => types.includes(t.type) && t.targetTransactionId === target.id && EXPOSED.includes(t.result) && voidOf(order, t)?.result !== 'SUCCESS',
  );
}

/** What is left to capture of an authorisation: its amount less its captures not voided (none once it is voided). */
export function uncaptured(order: LedgerOrderView, authorization: LedgerTransactionView): Money {
  const money = (amount: string) => Money.of(amount, order.currency);
  if (voidOf(order, authorization)) {
    return Money.zero(order.currency);
  }
  return dependentsOf(order, authorization, ['CAPTURE']).reduce((left, capture) => left.minus(money(capture.amount)), money(authorization.amount));
}

/** "a PAYMENT", "an AUTHORIZATION", "a FAILURE PAYMENT": how an explanation names a transaction. */
export function describeTransaction(t: Pick<LedgerTransactionView, 'type' | 'result'>): string {
  const what = t.result === 'SUCCESS' ? t.type : `${t.result} ${t.type}`;
  return `${/^[AEIOU]/.test(what) ? 'an' : 'a'} ${what}`;
}
