import {
  GatewayError,
  isJsonObject,
  JsonObject,
  MerchantContext,
  RecordMode,
  RecordOperationMessage,
  TransactionResult,
  TransactionType,
} from '@gateway/contracts';
import { Money, MoneyError } from '@gateway/money';
import { isCardReservationRow } from '@gateway/order-transaction/data-access';
import { LedgerEntry } from '../order-state/derive-order-state';
import { RecordedTransaction } from '../ledger-response/complete-response';
import { redactCardData } from '../ledger-response/redact-card-data';
import { requireFencingToken } from '../ledger-protocol/ledger-checks';

/** A record message with its money parsed (exactly, in its currency) and its card data redacted. */
export interface RecordInput {
  merchant: MerchantContext;
  fence: bigint;
  orderId: string;
  transactionId: string;
  apiOperation: string;
  requestHash: string;
  mode: RecordMode;
  /** UPDATE: the operation that created the transaction it continues, when the caller names it. */
  updates: string | null;
  /** The caller's hint that begin saw no order (RecordOperationMessage.newOrder). */
  newOrder: boolean;
  orderCurrency: string;
  orderAmount: Money | null;
  details: JsonObject;
  notificationUrl: string | null;
  transaction: RecordedTransaction & { fundingType: string | null; taxAmount: Money | null };
  response: JsonObject;
  /** The stored agreement's text the record carries (RecordOperationMessage.storedAgreementText), and whose it is; null: none. */
  agreementText: AgreementText | null;
}

/** An agreement's stored text, as an operation read it and its record carries it. */
export interface AgreementText {
  agreementId: string;
  customData: string;
}

export function parseRecordInput(message: RecordOperationMessage): RecordInput {
  const { order, transaction } = message;
  const amount = money(transaction.amount, transaction.currency, 'transaction');
  const taxAmount = transaction.taxAmount === undefined ? null : money(transaction.taxAmount, transaction.currency, 'transaction', 'taxAmount');
  assertTaxWithinAmount(amount, taxAmount);
  return {
    merchant: message.envelope.merchant,
    fence: requireFencingToken(message.envelope),
    orderId: message.orderId,
    transactionId: message.transactionId,
    apiOperation: message.apiOperation,
    requestHash: message.requestHash,
    mode: message.mode,
    updates: message.updates ?? null,
    newOrder: message.newOrder === true,
    orderCurrency: order.currency,
    orderAmount: order.amount === undefined ? null : money(order.amount, order.currency, 'order'),
    details: redactCardData(order.details ?? {}),
    notificationUrl: order.notificationUrl ?? null,
    transaction: {
      id: message.transactionId,
      type: transaction.type,
      amount,
      result: transaction.result,
      gatewayCode: transaction.gatewayCode,
      targetTransactionId: transaction.targetTransactionId ?? null,
      fundingType: transaction.fundingType ?? null,
      taxAmount,
    },
    response: message.response,
    agreementText: message.storedAgreementText === true ? agreementTextOf(message.response) : null,
  };
}

/** The agreement group's id and custom data, when it has both. */
function agreementTextOf(json: JsonObject): AgreementText | null {
  const agreement = json.agreement;
  if (!isJsonObject(agreement)) {
    return null;
  }
  const { id, customData } = agreement;
  return typeof id === 'string' && typeof customData === 'string' ? { agreementId: id, customData } : null;
}

/**
 * The message without the stored agreement's text: its response's and order details'
 * `agreement.customData` left out, and no longer said to carry it. For a record whose agreement
 * no longer holds that text (a payer's erasure cleared it after the operation read it).
 */
export function withoutStoredAgreementText(message: RecordOperationMessage): RecordOperationMessage {
  const { storedAgreementText: _carried, ...rest } = message;
  const { details } = message.order;
  return {
    ...rest,
    order: { ...message.order, ...(details !== undefined ? { details: withoutAgreementCustomData(details) } : {}) },
    response: withoutAgreementCustomData(message.response),
  };
}

function withoutAgreementCustomData(json: JsonObject): JsonObject {
  const agreement = json.agreement;
  if (!isJsonObject(agreement) || !Object.hasOwn(agreement, 'customData')) {
    return json;
  }
  const { customData: _erased, ...kept } = agreement;
  return { ...json, agreement: kept };
}

/**
 * The tax recorded with a transaction is part of its amount, whoever records it (the request
 * rules hold it for CAPTURE and REFUND, the sub-total rule for a payment, and a partial approval
 * records no tax): so a full refund's default tax, their sum, stays within the order's captured
 * total, which the ledger keeps answerable (docs/decisions/amount-consistency-rules.md).
 */
function assertTaxWithinAmount(amount: Money, taxAmount: Money | null): void {
  if (taxAmount !== null && taxAmount.greaterThan(amount)) {
    throw GatewayError.invalidField(
      'transaction.taxAmount',
      'INVALID',
      `Value '${taxAmount.toFixed()}' is invalid. The tax is part of the amount: at most ${amount.toFixed()} ${amount.currency}.`,
    );
  }
}

/** The order's currency is fixed by its first transaction; every later one must use it. */
export function assertOrderCurrency(orderCurrency: string, input: RecordInput): void {
  for (const [group, currency] of [
    ['order', input.orderCurrency],
    ['transaction', input.transaction.amount.currency],
  ] as const) {
    if (currency !== orderCurrency) {
      throw GatewayError.invalidField(
        `${group}.currency`,
        'INVALID',
        `Value '${currency}' is invalid. The order's currency is ${orderCurrency}.`,
      );
    }
  }
}

/** An UPDATE completes a transaction; only an approved refund request changes its type. */
export function assertTypeChangeAllowed(from: TransactionType, to: TransactionType): void {
  if (from !== to && !(from === 'REFUND_REQUEST' && to === 'REFUND')) {
    throw new Error(`a ledger UPDATE may not turn a ${from} into a ${to}`);
  }
}

/**
 * A card reservation is written by the CREATE that opens its transaction (RunReservedOperation,
 * RefundOrder), never by an UPDATE of one: the sweep for abandoned reservations reads the ledger
 * by creation time (UnknownInquiries.sweepAbandoned), and a transaction made a reservation again
 * after its creation would be behind the sweep's cursor, never found. No caller does it (a
 * completion carries an acquirer's code, never PENDING; browser-payment's steps are PROVIDER_*
 * funded); this keeps it so (docs/decisions/unknown-resolution.md, amendment "abandoned
 * reservations nobody reads").
 */
export function assertNotReservedAgain(transaction: RecordInput['transaction']): void {
  if (isCardReservationRow(transaction)) {
    throw new Error(`a ledger UPDATE may not make card transaction ${transaction.id} a reservation (PENDING) again: a reservation is created, not updated`);
  }
}

export function entryOf(transaction: {
  id: string;
  type: TransactionType;
  amount: Money;
  result: TransactionResult;
  targetTransactionId: string | null;
}): LedgerEntry {
  return {
    id: transaction.id,
    type: transaction.type,
    amount: transaction.amount.toString(),
    result: transaction.result,
    targetTransactionId: transaction.targetTransactionId,
  };
}

function money(amount: string, currency: string, group: 'order' | 'transaction', name = 'amount'): Money {
  try {
    return Money.of(amount, currency);
  } catch (err) {
    if (!(err instanceof MoneyError)) {
      throw err;
    }
    const field = err.code === 'UNKNOWN_CURRENCY' ? `${group}.currency` : `${group}.${name}`;
    const value = err.code === 'UNKNOWN_CURRENCY' ? currency : amount;
    throw GatewayError.invalidField(field, 'INVALID', `Value '${value}' is invalid. ${err.message}`);
  }
}
