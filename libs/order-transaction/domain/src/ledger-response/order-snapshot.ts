import { asJsonObject } from '@gateway/contracts';
import type { JsonObject, JsonValue, LedgerOrderField, LedgerOrderView, OrderStatus } from '@gateway/contracts';
import type { OrderRow, TransactionRow } from '@gateway/order-transaction/data-access';
import { Money } from '@gateway/money';
import { OrderState } from '../order-state/derive-order-state';

/** An order as the ledger presents it: exact money, derived status and totals, times. */
export interface OrderSnapshot extends OrderState {
  id: string;
  currency: string;
  amount: Money;
  createdAt: Date;
  updatedAt: Date;
}

export function snapshotOf(row: OrderRow): OrderSnapshot {
  const money = (amount: string) => Money.of(amount, row.currency);
  return {
    id: row.orderId,
    currency: row.currency,
    amount: money(row.amount),
    status: row.status as OrderStatus,
    totalAuthorizedAmount: money(row.totalAuthorizedAmount),
    totalCapturedAmount: money(row.totalCapturedAmount),
    totalRefundedAmount: money(row.totalRefundedAmount),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/**
 * The fields of a response's `order` group the ledger owns. Amounts are JSON numbers rendered
 * from the exact decimals (Money.toJSON), never the result of float arithmetic.
 */
export function ledgerOrderFields(order: OrderSnapshot): JsonObject {
  // Exactly the contract's list, which the edge reads an order group through (order-group-fields.ts).
  return {
    id: order.id,
    amount: order.amount.toJSON(),
    currency: order.currency,
    status: order.status,
    totalAuthorizedAmount: order.totalAuthorizedAmount.toJSON(),
    totalCapturedAmount: order.totalCapturedAmount.toJSON(),
    totalRefundedAmount: order.totalRefundedAmount.toJSON(),
    creationTime: order.createdAt.toISOString(),
    lastUpdatedTime: order.updatedAt.toISOString(),
  } satisfies Record<LedgerOrderField, JsonValue>;
}

/** The body with its `order` group's ledger fields set to this order's current values. */
export function withOrderFields(body: JsonObject, order: OrderSnapshot): JsonObject {
  return { ...body, order: orderGroupWith(body.order, order) };
}

/** A response's `order` group (absent: none) with the ledger's fields set to this order's current values. */
export function orderGroupWith(group: JsonValue | undefined, order: OrderSnapshot): JsonObject {
  return { ...objectOrEmpty(group), ...ledgerOrderFields(order) };
}

export function objectOrEmpty(value: JsonValue | undefined): JsonObject {
  return asJsonObject(value) ?? {};
}

/** What begin answers with: the order as the ledger knows it, amounts as exact decimal text. */
export function orderView(order: OrderSnapshot, transactions: readonly TransactionRow[]): LedgerOrderView {
  return {
    id: order.id,
    currency: order.currency,
    amount: order.amount.toFixed(),
    status: order.status,
    totalAuthorizedAmount: order.totalAuthorizedAmount.toFixed(),
    totalCapturedAmount: order.totalCapturedAmount.toFixed(),
    totalRefundedAmount: order.totalRefundedAmount.toFixed(),
    creationTime: order.createdAt.toISOString(),
    lastUpdatedTime: order.updatedAt.toISOString(),
    transactions: transactions.map((t) => ({
      id: t.transactionId,
      type: t.type,
      apiOperation: t.apiOperation,
      amount: Money.of(t.amount, t.currency).toFixed(),
      currency: t.currency,
      result: t.result,
      gatewayCode: t.gatewayCode,
      ...(t.targetTransactionId ? { targetTransactionId: t.targetTransactionId } : {}),
      ...(t.fundingType ? { fundingType: t.fundingType } : {}),
      ...(t.taxAmount !== null ? { taxAmount: Money.of(t.taxAmount, t.currency).toFixed() } : {}),
      createdAt: t.createdAt.toISOString(),
    })),
  };
}
