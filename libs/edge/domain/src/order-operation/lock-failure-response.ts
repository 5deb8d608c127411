import {
  browserPaymentAcquirerIdOf,
  cardAcquirerIdOf,
  isJsonObject,
  JsonObject,
  jsonObjectAt,
  JsonValue,
  MerchantContext,
  OrderApiOperation,
  orderGroupOf,
  PROVIDER_OF_SOURCE,
  refundNeedsApproval,
  VOID_TYPE_OF,
} from '@gateway/contracts';
import { Money } from '@gateway/money';
import { timeOfRecord } from '../api/api-response';

/** The operation the edge refused with LOCK_FAILURE, as the merchant sent it (a session's values filled in). */
export interface RefusedOperation {
  apiOperation: OrderApiOperation;
  orderId: string;
  transactionId: string;
  body: JsonObject;
  /**
   * Whose operation it is: the merchant's profile routes it to an acquirer (contracts,
   * acquirer-routing.ts) and says whether its refunds wait for approval.
   */
  merchant: Pick<MerchantContext, 'mode' | 'settings'>;
}

/** The ledger did not answer the read of the order: it may exist, with any totals. */
export const ORDER_UNREAD = 'UNREAD';

/**
 * Another operation holds the order: processed (201) but refused, and nothing was created, so
 * the merchant may retry with the same transaction id (ARCHITECTURE 4.8, 4.9).
 *
 * The body still carries what the spec always provides, so a merchant's parser reads it like
 * any other FAILURE: the `order` group as the ledger holds the order now (`order` is its
 * retrieval, GET .../order/{id}; null when the order does not exist yet: then the totals are
 * zero and amount and currency are the request's; ORDER_UNREAD when the ledger did not answer:
 * amount and currency are the request's and the totals are left out, since the order may hold
 * funds), and the `transaction` group as the operation would have recorded it: its type and
 * amount, from the request, or from the transaction it acts on where the request does not say
 * (a VOID's target, a CONFIRM's initiated payment). What cannot be known is left out, never
 * guessed.
 */
export function lockFailureBody(refused: RefusedOperation, ledgerOrder: JsonObject | null | typeof ORDER_UNREAD): JsonObject {
  const order = ledgerOrder === ORDER_UNREAD ? null : ledgerOrder;
  const transaction = withOrderAcquirer(withRoutedAcquirer(requestedTransaction(refused, order), refused), order);
  return {
    order: order ? orderGroupOf(order) : requestedOrderGroup(refused, transaction, ledgerOrder !== ORDER_UNREAD),
    response: { gatewayCode: 'LOCK_FAILURE' },
    result: 'FAILURE',
    timeOfRecord: timeOfRecord(),
    transaction,
  };
}

/**
 * The order group from the request alone: its amount and currency. The totals are zero only on
 * an order known not to exist yet (`known`): an order the ledger did not answer for may have
 * authorised, captured or refunded funds, and a zero there would tell the merchant none were.
 */
function requestedOrderGroup(refused: RefusedOperation, transaction: JsonObject, known: boolean): JsonObject {
  const requested = objectAt(refused.body, 'order');
  const currency = stringOf(requested.currency) ?? stringOf(transaction.currency);
  const group: JsonObject = { id: refused.orderId };
  const amount = amountOf(requested.amount, currency);
  if (amount !== undefined) group.amount = amount;
  if (currency !== undefined) group.currency = currency;
  const zero = amountOf('0', currency);
  if (known && zero !== undefined) {
    Object.assign(group, { totalAuthorizedAmount: zero, totalCapturedAmount: zero, totalRefundedAmount: zero });
  }
  return group;
}

/** The transaction group: id, type, amount and currency, the target and its acquirer where there is one. */
function requestedTransaction(refused: RefusedOperation, order: JsonObject | null): JsonObject {
  const requestOrder = objectAt(refused.body, 'order');
  const requestTransaction = objectAt(refused.body, 'transaction');
  const targetId = stringOf(requestTransaction.targetTransactionId);
  const recorded = (id: string | undefined) => (id === undefined ? undefined : transactionOf(order, id));
  const fields = (type: string | undefined, amount: JsonValue | undefined, currency: string | undefined): JsonObject => {
    const group: JsonObject = { id: refused.transactionId };
    if (type !== undefined) group.type = type;
    const rendered = amountOf(amount, currency);
    if (rendered !== undefined) group.amount = rendered;
    if (currency !== undefined) group.currency = currency;
    return group;
  };

  switch (refused.apiOperation) {
    case 'VERIFY':
      return fields('VERIFICATION', '0', stringOf(requestOrder.currency));
    case 'AUTHORIZE':
    case 'PAY':
      return fields(refused.apiOperation === 'PAY' ? 'PAYMENT' : 'AUTHORIZATION', requestOrder.amount, stringOf(requestOrder.currency));
    case 'INITIATE_BROWSER_PAYMENT':
      return fields(browserPaymentTypeOf(refused.body), requestOrder.amount, stringOf(requestOrder.currency));
    case 'CONFIRM_BROWSER_PAYMENT': {
      const initiated = recorded(refused.transactionId);
      const currency = stringOf(initiated?.currency) ?? stringOf(requestOrder.currency);
      const group = fields(stringOf(initiated?.type), requestOrder.amount ?? initiated?.amount, currency);
      const acquirerId = stringOf(objectAt(initiated ?? {}, 'acquirer').id);
      if (acquirerId !== undefined) group.acquirer = { id: acquirerId };
      return group;
    }
    case 'CAPTURE':
    case 'REFUND': {
      const type = refused.apiOperation === 'REFUND' && refundNeedsApproval(refused.merchant, requestTransaction.priorApproval) ? 'REFUND_REQUEST' : refused.apiOperation;
      return withTarget(fields(type, requestTransaction.amount, stringOf(requestTransaction.currency)), targetId, recorded(targetId));
    }
    case 'VOID': {
      const target = recorded(targetId);
      return withTarget(fields(voidTypeOf(target?.type), target?.amount, stringOf(target?.currency)), targetId, target);
    }
  }
}

/**
 * An initiated browser payment's type: provider_a authorises or pays as
 * browserPayment.provider_a.operation says (pays when the group is left out); the bank
 * transfers (provider_b, provider_c) always pay.
 */
function browserPaymentTypeOf(body: JsonObject): string | undefined {
  const provider = providerOf(body);
  if (provider === undefined) return undefined;
  const operation = provider === 'provider_a' ? (objectAt(objectAt(body, 'browserPayment'), 'provider_a').operation ?? 'PAY') : 'PAY';
  return operation === 'PAY' ? 'PAYMENT' : operation === 'AUTHORIZE' ? 'AUTHORIZATION' : undefined;
}

function voidTypeOf(targetType: JsonValue | undefined): string | undefined {
  return typeof targetType === 'string' && Object.prototype.hasOwnProperty.call(VOID_TYPE_OF, targetType)
    ? VOID_TYPE_OF[targetType as keyof typeof VOID_TYPE_OF]
    : undefined;
}

/** A follow-on operation names its target, and the acquirer that holds the target answers for it too. */
function withTarget(group: JsonObject, targetId: string | undefined, target: JsonObject | undefined): JsonObject {
  if (targetId !== undefined) group.targetTransactionId = targetId;
  const acquirerId = stringOf(objectAt(target ?? {}, 'acquirer').id);
  if (acquirerId !== undefined) group.acquirer = { id: acquirerId };
  return group;
}

/**
 * `transaction.acquirer` is ALWAYS PROVIDED (spec, Shared response groups). Without a target
 * naming it, an operation whose acquirer follows from the request and the merchant's profile
 * names that one, read where the services read it (contracts, acquirer-routing.ts), whether
 * the order exists or not:
 *   VERIFY, AUTHORIZE, PAY  the merchant's card acquirer (a card given, a token's or a session's);
 *   INITIATE_BROWSER_PAYMENT  the acquirer of the provider its sourceOfFunds.type names;
 *   REFUND  a standalone one (it gives sourceOfFunds and names no target; on an order that
 *           exists the ledger refuses it): the merchant's card acquirer.
 * A merchant with none configured (a live one) leaves it to the order, or out.
 */
function withRoutedAcquirer(group: JsonObject, refused: RefusedOperation): JsonObject {
  if (group.acquirer !== undefined) return group;
  const acquirerId = routedAcquirerId(refused);
  return acquirerId === undefined ? group : { ...group, acquirer: { id: acquirerId } };
}

function routedAcquirerId(refused: RefusedOperation): string | undefined {
  switch (refused.apiOperation) {
    case 'VERIFY':
    case 'AUTHORIZE':
    case 'PAY':
      return cardAcquirerIdOf(refused.merchant);
    case 'INITIATE_BROWSER_PAYMENT': {
      const provider = providerOf(refused.body);
      return provider === undefined ? undefined : browserPaymentAcquirerIdOf(refused.merchant, provider);
    }
    case 'REFUND': {
      const standalone = isJsonObject(refused.body.sourceOfFunds) && objectAt(refused.body, 'transaction').targetTransactionId === undefined;
      return standalone ? cardAcquirerIdOf(refused.merchant) : undefined;
    }
    default:
      return undefined;
  }
}

/** The provider a browser payment's sourceOfFunds.type names. */
function providerOf(body: JsonObject): (typeof PROVIDER_OF_SOURCE)[keyof typeof PROVIDER_OF_SOURCE] | undefined {
  const type = objectAt(body, 'sourceOfFunds').type;
  return typeof type === 'string' && Object.prototype.hasOwnProperty.call(PROVIDER_OF_SOURCE, type)
    ? PROVIDER_OF_SOURCE[type as keyof typeof PROVIDER_OF_SOURCE]
    : undefined;
}

/**
 * Otherwise (a follow-on operation leaving its target to the ledger, a merchant with no
 * acquirer configured) the acquirer is the one that holds the order: the one every transaction
 * recorded on it names. An order not read (not yet created, or the ledger did not answer), or
 * whose transactions name none or several, leaves it out: it cannot be known, and is never
 * guessed.
 */
function withOrderAcquirer(group: JsonObject, order: JsonObject | null): JsonObject {
  if (group.acquirer !== undefined) return group;
  const transactions = Array.isArray(order?.transaction) ? order.transaction : [];
  const ids = new Set(transactions.map((entry) => stringOf(objectAt(objectAt(entry, 'transaction'), 'acquirer').id)).filter((id) => id !== undefined));
  return ids.size === 1 ? { ...group, acquirer: { id: [...ids][0] as string } } : group;
}

/** The `transaction` group of the order's transaction `id`, as the retrieval shows it. */
function transactionOf(order: JsonObject | null, id: string): JsonObject | undefined {
  const transactions = order?.transaction;
  if (!Array.isArray(transactions)) return undefined;
  for (const entry of transactions) {
    const group = objectAt(entry, 'transaction');
    if (group.id === id) return group;
  }
  return undefined;
}

/** An amount as responses render it (a JSON number from the exact decimal), if it is one in this currency. */
function amountOf(value: JsonValue | undefined, currency: string | undefined): number | undefined {
  if (currency === undefined || (typeof value !== 'string' && typeof value !== 'number')) return undefined;
  try {
    return Money.of(String(value), currency).toJSON();
  } catch {
    return undefined;
  }
}

/** The object at `key` of `value`, or an empty one: what a missing group reads as. */
function objectAt(value: JsonValue | undefined, key: string): JsonObject {
  return jsonObjectAt(value, key) ?? {};
}

function stringOf(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
