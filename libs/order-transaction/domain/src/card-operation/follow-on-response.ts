import type { JsonObject, LineItem } from '@gateway/contracts';
import type { Money } from '@gateway/money';
import { lineItemForResponse } from '../refund-order/refund-response';
import { storedAcquirerId } from './acquirer-reference';
import type { CardOutcome } from './card-outcome';
import { definedGroups, plain } from './reserved-operation';

/** What CAPTURE and VOID requests share for their response. */
export interface FollowOnRequest {
  order?: { customerNote?: string; reference?: string };
  partnerSolutionId?: string;
  userId?: string;
  transaction: {
    acquirer?: { customData?: string };
    item?: LineItem[];
    merchantNote?: string;
    reference?: string;
    targetTransactionId?: string;
  };
}

/**
 * The response body of a CAPTURE or VOID, without what the ledger owns. It funds (or unfunds)
 * the same source as its target: the target's sourceOfFunds (stored masked) and 3-D Secure
 * data are shown again; transaction.acquirer.id is the acquirer that answered, or before it
 * answered the one that processed the target.
 */
export function followOnResponseBody(
  request: FollowOnRequest,
  currency: string,
  targetBody: JsonObject | null,
  outcome: CardOutcome | undefined,
  taxAmount?: Money | null,
): JsonObject {
  const transaction = request.transaction;
  const acquirer: JsonObject = outcome?.acquirer ? { ...outcome.acquirer } : acquirerIdOf(targetBody);
  if (transaction.acquirer?.customData !== undefined) acquirer.customData = transaction.acquirer.customData;
  return definedGroups({
    '3DSecure': targetBody?.['3DSecure'],
    authorizationResponse: outcome?.authorizationResponse,
    order: followOnOrderGroup(request),
    partnerSolutionId: request.partnerSolutionId,
    response: definedGroups({ acquirerCode: outcome?.acquirerCode, acquirerMessage: outcome?.acquirerMessage }),
    sourceOfFunds: targetBody?.sourceOfFunds,
    transaction: definedGroups({
      acquirer: Object.keys(acquirer).length > 0 ? acquirer : undefined,
      item: transaction.item?.map((item) => lineItemForResponse(item, currency)),
      merchantNote: transaction.merchantNote,
      receipt: outcome?.receipt,
      reference: transaction.reference,
      taxAmount: taxAmount?.toJSON(),
    }),
    userId: request.userId,
  });
}

/** What a CAPTURE or VOID may change on the order. */
export function followOnOrderGroup(request: FollowOnRequest): JsonObject {
  return plain(request.order) ?? {};
}

function acquirerIdOf(targetBody: JsonObject | null): JsonObject {
  const id = storedAcquirerId(targetBody);
  return id !== undefined ? { id } : {};
}
