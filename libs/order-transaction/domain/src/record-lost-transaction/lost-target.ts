import { CaptureRequest, GatewayError, LedgerOrderView, LedgerTransactionView, TransactionType, VoidRequest } from '@gateway/contracts';
import { planCapture } from '../capture-order/capture-plan';
import { describeTransaction, routeOf } from '../card-operation/order-transactions';
import { FUNDS_TRANSFERS, refundTargetOf } from '../refund-order/refund-plan';
import { planVoid } from '../void-transaction/void-plan';
import type { LostTransaction, LostTransactionType } from './lost-transaction';

/**
 * The successful transactions a record of each type may act on, whose stored responses are read
 * with the order (TargetQuery): a capture's authorisations, a refund's payments and captures, a
 * void's target of the type it voids.
 */
export const LOST_TARGET_TYPES: Record<LostTransactionType, readonly TransactionType[]> = {
  AUTHORIZATION: [],
  PAYMENT: [],
  CAPTURE: ['AUTHORIZATION'],
  REFUND: FUNDS_TRANSFERS,
  VOID_AUTHORIZATION: ['AUTHORIZATION'],
  VOID_CAPTURE: ['CAPTURE'],
  VOID_PAYMENT: ['PAYMENT'],
  VOID_REFUND: ['REFUND'],
};

/**
 * The transaction a lost record acts on, decided by the rules of the operation that made it, on
 * the order as it stands (null: no such order), exactly as that operation decides the merchant's
 * request:
 *   CAPTURE  planCapture: a successful AUTHORIZATION of the order, named or the single one with
 *            something left to capture, the amount in the order's currency and within what is left;
 *   REFUND   a linked refund's target (refundTargetOf): a successful PAYMENT or CAPTURE, named or
 *            the single one with something left to refund, or, when the record states the
 *            Excessive Refund privilege (`excessiveRefund`), the single one whatever is left, as
 *            for a privileged merchant; on no order, none: a standalone refund, which opens its order;
 *   VOID_*   planVoid: a successful transaction of the order, not voided, the latest of its
 *            chain, whose void is of the record's type and undoes its whole amount.
 * The target must have gone through the acquirer (a browser payment provider's are not in its
 * records). Null for an AUTHORIZATION, PAYMENT or standalone refund. A refusal names the
 * record's field (`amount`, `targetTransactionId`), not the request's.
 */
export function lostTarget(lost: LostTransaction, order: LedgerOrderView | null): LedgerTransactionView | null {
  try {
    const target = targetOf(lost, order);
    if (target && routeOf(target) === 'PROVIDER') {
      throw GatewayError.invalidField(
        'targetTransactionId',
        'INVALID',
        `Transaction '${target.id}' was funded through a browser payment provider: what acts on it is in the provider's records, not the acquirer's.`,
      );
    }
    return target;
  } catch (err) {
    throw asRecordField(err);
  }
}

function targetOf(lost: LostTransaction, order: LedgerOrderView | null): LedgerTransactionView | null {
  const amount = lost.amount.toFixed();
  const currency = lost.amount.currency;
  const named = lost.targetTransactionId;
  switch (lost.type) {
    case 'AUTHORIZATION':
    case 'PAYMENT':
      return null;
    case 'CAPTURE': {
      const request: CaptureRequest = { apiOperation: 'CAPTURE', transaction: { amount, currency, ...(named !== undefined ? { targetTransactionId: named } : {}) } };
      return planCapture(request, order, lost.orderId).target;
    }
    case 'REFUND':
      return order ? refundTargetOf(order, lost.amount, named, lost.excessiveRefund === true) : standaloneRefund(lost);
    default: {
      if (named === undefined) {
        throw new Error('a void record names its target (parseLostTransaction requires it)');
      }
      const request: VoidRequest = { apiOperation: 'VOID', transaction: { targetTransactionId: named } };
      const plan = planVoid(request, order, lost.orderId);
      if (plan.type !== lost.type) {
        throw GatewayError.invalidField('type', 'INVALID', `type ${lost.type} cannot void transaction '${plan.target.id}', which is ${describeTransaction(plan.target)}: its void is a ${plan.type}.`);
      }
      if (!plan.amount.equals(lost.amount)) {
        throw GatewayError.invalidField(
          'amount',
          'INVALID',
          `amount ${amount} is not the amount of transaction '${plan.target.id}' (${plan.amount.toFixed()} ${plan.amount.currency}): a void undoes its target whole.`,
        );
      }
      return plan.target;
    }
  }
}

/** A refund on an order the ledger does not hold opens it (spec refund rule 2); it can name no target there. */
function standaloneRefund(lost: LostTransaction): null {
  if (lost.targetTransactionId !== undefined) {
    throw GatewayError.invalidField(
      'targetTransactionId',
      'INVALID',
      `Order '${lost.orderId}' is not in the ledger, nor opened by an earlier line of the file: record the transaction refunded before its refund (a refund with no target on a new order is a standalone refund).`,
    );
  }
  return null;
}

/** The operation's refusal on the request's field (`transaction.amount`) as the record names it (`amount`). */
export function asRecordField(err: unknown): unknown {
  if (err instanceof GatewayError && err.field?.startsWith('transaction.') && err.validationType) {
    return GatewayError.invalidField(err.field.slice('transaction.'.length), err.validationType, err.explanation ?? err.code);
  }
  return err;
}

