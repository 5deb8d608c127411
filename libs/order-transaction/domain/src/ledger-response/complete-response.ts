import type { JsonObject, TransactionResult, TransactionType } from '@gateway/contracts';
import { Money } from '@gateway/money';
import { objectOrEmpty, orderGroupWith, OrderSnapshot } from './order-snapshot';
import { redactCardData } from './redact-card-data';

export interface RecordedTransaction {
  id: string;
  type: TransactionType;
  amount: Money;
  result: TransactionResult;
  gatewayCode: string;
  targetTransactionId: string | null;
}

/**
 * The body the ledger stores and answers for a record: the operation's response with card
 * data redacted and the fields the ledger owns set from what it recorded, so a response can
 * never disagree with the ledger (the list is in ledger.messages.ts).
 */
export function completeResponse(
  response: JsonObject,
  order: OrderSnapshot,
  transaction: RecordedTransaction,
  at: Date,
): JsonObject {
  const body = redactCardData(response);
  const { targetTransactionId: _callers, ...transactionGroup } = objectOrEmpty(body.transaction);
  const completed: JsonObject = {
    ...body,
    result: transaction.result,
    response: { ...objectOrEmpty(body.response), gatewayCode: transaction.gatewayCode },
    transaction: {
      ...transactionGroup,
      id: transaction.id,
      type: transaction.type,
      amount: transaction.amount.toJSON(),
      currency: transaction.amount.currency,
      ...(transaction.targetTransactionId ? { targetTransactionId: transaction.targetTransactionId } : {}),
    },
    timeOfRecord: typeof body.timeOfRecord === 'string' ? body.timeOfRecord : at.toISOString(),
  };
  // withOrderFields, on this fresh object rather than a copy of it: the group is set where the
  // copy would put it (in its place when the body has one, else last).
  completed.order = orderGroupWith(completed.order, order);
  return completed;
}
