import { cardForResponse, RefundResult } from '@gateway/acquirer';
import type { JsonObject, ProviderRefundReply } from '@gateway/contracts';
import { isJsonObject, TRANSACTION_RESULTS } from '@gateway/contracts';
import { OUTCOME_UNKNOWN, type OperationOutcome } from '../card-operation/operation-outcome';

/** What the side effect of a refund came to, whoever performed it (the card refunded to, masked). */
export interface RefundOutcome extends OperationOutcome {
  /** A provider's sourceOfFunds group (provider details, masked). */
  sourceOfFunds?: JsonObject;
}

/** An acquirer connector's refund result. */
export function outcomeOfAcquirer(result: RefundResult): RefundOutcome {
  return {
    result: result.result,
    gatewayCode: result.gatewayCode,
    ...(result.acquirerCode ? { acquirerCode: result.acquirerCode } : {}),
    ...(result.acquirerMessage ? { acquirerMessage: result.acquirerMessage } : {}),
    acquirer: { ...result.acquirer },
    authorizationResponse: { ...result.authorizationResponse },
    receipt: result.receipt,
    ...(result.card ? { card: cardForResponse(result.card) } : {}),
    answered: { amount: result.amount },
  };
}

const GATEWAY_CODE = /^[A-Z0-9_]{1,40}$/;

/**
 * browser-payment's answer. A reply that does not say what happened is an outcome nobody
 * knows: UNKNOWN, never a guess.
 */
export function outcomeOfProvider(reply: ProviderRefundReply | undefined): RefundOutcome {
  if (!reply || !TRANSACTION_RESULTS.includes(reply.result) || typeof reply.gatewayCode !== 'string' || !GATEWAY_CODE.test(reply.gatewayCode)) {
    return OUTCOME_UNKNOWN;
  }
  return {
    result: reply.result,
    gatewayCode: reply.gatewayCode,
    ...(typeof reply.providerReference === 'string' ? { receipt: reply.providerReference.slice(0, 100) } : {}),
    ...(isJsonObject(reply.sourceOfFunds) ? { sourceOfFunds: reply.sourceOfFunds } : {}),
  };
}
