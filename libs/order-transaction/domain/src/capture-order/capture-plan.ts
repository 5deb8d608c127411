import type { CaptureRequest, LedgerOrderView, LedgerTransactionView } from '@gateway/contracts';
import { GatewayError } from '@gateway/contracts';
import { Money } from '@gateway/money';
import { describeTransaction, FundsRoute, routeOf, uncaptured } from '../card-operation/order-transactions';
import { captureLimitError } from '../order-state/ledger-rules';
import { money } from '../pay-by-card/card-payment-plan';
import { invalid, missing } from '../request-errors/request-errors';

export interface CapturePlan {
  amount: Money;
  taxAmount: Money | null;
  /** The authorisation captured. */
  target: LedgerTransactionView;
  /** The card acquirer, or the browser payment provider that holds the authorisation. */
  route: FundsRoute;
}

/**
 * What a CAPTURE means on the order as begin saw it (docs/decisions/card-payment-rules.md):
 * an authorisation of this order, named or the single one with something left to capture, and
 * an amount in the order's currency no greater than what is left of it. The ledger enforces the
 * capture limit again when the capture is reserved, on the order as it stands when that write
 * lands. A browser payment's authorisation (AUTHORIZE at provider_a) is captured under the same
 * rules, at its provider (browser-payment-journey.md, amendment 2026-11-26: captures).
 */
export function planCapture(request: CaptureRequest, order: LedgerOrderView | null, orderId: string): CapturePlan {
  if (!order) {
    throw GatewayError.invalidRequest(`Order '${orderId}' does not exist: a capture needs an order with an authorization (apiOperation AUTHORIZE).`);
  }
  const amount = money('transaction.amount', request.transaction.amount, request.transaction.currency);
  if (amount.currency !== order.currency) {
    throw invalid('transaction.currency', amount.currency, `The order's currency is ${order.currency}.`);
  }
  const taxAmount = request.transaction.taxAmount === undefined ? null : money('transaction.taxAmount', request.transaction.taxAmount, amount.currency);
  const named = request.transaction.targetTransactionId;
  const target = named === undefined ? identifiedAuthorization(order, amount) : namedAuthorization(order, named);
  const left = uncaptured(order, target);
  if (amount.greaterThan(left)) {
    throw captureLimitError(amount, left);
  }
  return { amount, taxAmount, target, route: routeOf(target) };
}

function namedAuthorization(order: LedgerOrderView, id: string): LedgerTransactionView {
  const target = order.transactions.find((t) => t.id === id);
  if (!target) {
    throw invalid('transaction.targetTransactionId', id, `Order '${order.id}' has no transaction with this id.`);
  }
  if (target.type !== 'AUTHORIZATION' || target.result !== 'SUCCESS') {
    throw invalid('transaction.targetTransactionId', id, `Transaction '${id}' is ${describeTransaction(target)}: only a successful AUTHORIZATION can be captured.`);
  }
  return target;
}

/** Without targetTransactionId: the one successful authorisation with something left to capture. */
function identifiedAuthorization(order: LedgerOrderView, amount: Money): LedgerTransactionView {
  const authorizations = order.transactions.filter((t) => t.type === 'AUTHORIZATION' && t.result === 'SUCCESS');
  const open = authorizations.filter((t) => uncaptured(order, t).isPositive());
  if (open.length > 1) {
    throw missing(
      'transaction.targetTransactionId',
      `Order '${order.id}' has ${open.length} authorizations with an amount left to capture (${open.map((t) => t.id).join(', ')}): name the one to capture.`,
    );
  }
  if (open.length === 0 && authorizations.length > 0) {
    // Captured in full or voided: the capture limit's own answer (nothing available).
    throw captureLimitError(amount, Money.zero(order.currency));
  }
  if (open.length === 0) {
    throw GatewayError.invalidRequest(`Order '${order.id}' has no successful authorization to capture.`);
  }
  return open[0];
}
