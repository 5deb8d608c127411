import type { AcquirerTransactionReference } from '@gateway/acquirer';
import type { JsonObject } from '@gateway/contracts';
import { objectOrEmpty } from '../ledger-response/order-snapshot';
import { invalid } from '../request-errors/request-errors';

/**
 * How the acquirer knows an earlier transaction of the order (the one a capture, void or linked
 * refund refers to): its own id, kept in that transaction's stored response. No card is needed.
 */
export function acquirerReferenceOf(targetBody: JsonObject | null, targetId: string, doing: string): AcquirerTransactionReference {
  const reference = storedAcquirerReference(targetBody);
  if (!reference) {
    throw invalid(
      'transaction.targetTransactionId',
      targetId,
      `The gateway holds no acquirer reference for this transaction, so it cannot be ${doing} through the acquirer.`,
    );
  }
  return reference;
}

/** The acquirer's reference in a stored response, if its answer gave one. */
export function storedAcquirerReference(body: JsonObject | null): AcquirerTransactionReference | undefined {
  const transaction = objectOrEmpty(body?.transaction);
  const acquirer = objectOrEmpty(transaction.acquirer);
  if (typeof acquirer.transactionId !== 'string') {
    return undefined;
  }
  return {
    acquirerTransactionId: acquirer.transactionId,
    ...(typeof transaction.authorizationCode === 'string' ? { authorizationCode: transaction.authorizationCode } : {}),
    ...(typeof transaction.receipt === 'string' ? { receipt: transaction.receipt } : {}),
  };
}

/**
 * The acquirer that processed a transaction, as its stored response names it
 * (`transaction.acquirer.id`): where an operation on it is sent (AcquirerRegistry.forRecordedAcquirer).
 */
export function storedAcquirerId(body: JsonObject | null): string | undefined {
  const id = objectOrEmpty(objectOrEmpty(body?.transaction).acquirer).id;
  return typeof id === 'string' ? id : undefined;
}
