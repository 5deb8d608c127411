import type { LedgerOrderView, LedgerTransactionView, VoidRequest } from '@gateway/contracts';
import { GatewayError, VOID_TYPE_OF } from '@gateway/contracts';
import { Money } from '@gateway/money';
import { dependentsOf, describeTransaction, FundsRoute, isVoidable, routeOf, VoidableType, voidOf } from '../card-operation/order-transactions';
import { VOID_DEPENDENTS } from '../order-state/ledger-rules';
import { invalid } from '../request-errors/request-errors';

export interface VoidPlan {
  type: (typeof VOID_TYPE_OF)[VoidableType];
  /** The target's own amount: a void undoes it whole. */
  amount: Money;
  target: LedgerTransactionView & { type: VoidableType };
  /** The card acquirer, or the browser payment provider that holds the authorisation. */
  route: FundsRoute;
}

const FIELD = 'transaction.targetTransactionId';

/**
 * What a VOID means on the order as begin saw it (docs/decisions/card-payment-rules.md): the
 * named transaction is a successful authorisation, capture, payment or refund of this order,
 * not voided already (nor with a void under way), funded by a card or, for an authorisation, by a
 * browser payment provider (voided there), and the latest of its chain: nothing recorded against
 * it still stands (an authorisation's captures, a capture's or payment's refunds must be voided
 * first). Each refusal is a 400 on the target that says why.
 */
export function planVoid(request: VoidRequest, order: LedgerOrderView | null, orderId: string): VoidPlan {
  if (!order) {
    throw GatewayError.invalidRequest(`Order '${orderId}' does not exist: a void undoes a transaction of an existing order.`);
  }
  const id = request.transaction.targetTransactionId;
  const target = order.transactions.find((t) => t.id === id);
  if (!target) {
    throw invalid(FIELD, id, `Order '${order.id}' has no transaction with this id.`);
  }
  if (!isVoidable(target.type) || target.result !== 'SUCCESS') {
    throw invalid(FIELD, id, `Transaction '${id}' is ${describeTransaction(target)}: only a successful AUTHORIZATION, CAPTURE, PAYMENT or REFUND can be voided.`);
  }
  const earlier = voidOf(order, target);
  if (earlier) {
    const state = earlier.result === 'SUCCESS' ? 'already voided' : `being voided (its void is ${earlier.result})`;
    throw invalid(FIELD, id, `Transaction '${id}' is ${state} by transaction '${earlier.id}'.`);
  }
  const route = routeOf(target);
  if (route === 'PROVIDER' && target.type !== 'AUTHORIZATION') {
    // Money a provider moved goes back by a refund; only an authorisation, which moved none, is voided there.
    throw invalid(FIELD, id, `Transaction '${id}' was funded through a browser payment provider, which voids only authorizations: refund it instead.`);
  }
  const dependents = dependentsOf(order, target, VOID_DEPENDENTS[target.type]);
  if (dependents.length > 0) {
    const names = dependents.map((t) => `${t.type} '${t.id}'`).join(', ');
    const underWay = dependents.flatMap((t) => voidOf(order, t) ?? []).map((v) => `'${v.id}' is ${v.result}`);
    const wait = underWay.length > 0 ? ` (a void under way must have succeeded: ${underWay.join(', ')})` : '';
    throw invalid(FIELD, id, `Transaction '${id}' is not the latest of its chain: void ${names} first${wait}.`);
  }
  const voidable = target as VoidPlan['target'];
  return { type: VOID_TYPE_OF[voidable.type], amount: Money.of(target.amount, order.currency), target: voidable, route };
}
