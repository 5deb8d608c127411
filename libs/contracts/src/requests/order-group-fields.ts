import { describeRequest } from '@gateway/api-fields';
import type { JsonObject } from '../messages';
import { ORDER_OPERATION_REQUESTS } from './validate-request';

/**
 * The `order` group's fields the ledger owns and sets in every response it stores and returns
 * (ledger.messages.ts; order-transaction's `ledgerOrderFields` is typed against this list).
 */
export const LEDGER_ORDER_FIELDS = [
  'id',
  'amount',
  'currency',
  'status',
  'totalAuthorizedAmount',
  'totalCapturedAmount',
  'totalRefundedAmount',
  'creationTime',
  'lastUpdatedTime',
] as const;

export type LedgerOrderField = (typeof LEDGER_ORDER_FIELDS)[number];

/**
 * The fields a transaction response's `order` group can hold: the ledger's, and the merchant's
 * own order fields. Every operation answers its `order.*` request fields back in that group
 * (reference, description, custom fields, amounts, items, tax and wallet fields ...), so the
 * request classes are the list: a field some operation takes under `order` is an order field.
 *
 * An order's retrieval shows these at its top level beside the other groups the order keeps
 * (billing, customer, shipping, agreement, currencyConversion), which responses carry at their
 * own top level, never inside `order`. A body built from a retrieval (a LOCK_FAILURE answer)
 * takes its order group from it through this list.
 */
export const ORDER_GROUP_FIELDS: ReadonlySet<string> = new Set<string>([
  ...LEDGER_ORDER_FIELDS,
  ...Object.values(ORDER_OPERATION_REQUESTS).flatMap((request) =>
    describeRequest(request)
      .map((field) => /^order\.([^.[]+)/.exec(field.path)?.[1])
      .filter((name): name is string => name !== undefined),
  ),
]);

/** The order group's fields of an object holding them among others (an order's retrieval). */
export function orderGroupOf(fields: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(fields).filter(([key]) => ORDER_GROUP_FIELDS.has(key)));
}
