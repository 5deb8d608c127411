import { cardForResponse } from '@gateway/acquirer';
import type { AuthorizeCardResult, CaptureResult, VoidResult } from '@gateway/acquirer';
import type { JsonObject } from '@gateway/contracts';
import type { Money } from '@gateway/money';
import type { OperationOutcome } from './operation-outcome';

/** What the acquirer call of a card operation came to, whoever made it (the connector or the vault). */
export interface CardOutcome extends OperationOutcome {
  /** transaction.authorizationCode: the issuer's approval code. */
  authorizationCode?: string;
  /** response.cardSecurityCode */
  cardSecurityCode?: JsonObject;
  /** response.cardholderVerification.avs */
  avs?: JsonObject;
  /** AUTHORIZE and PAY: what the issuer approved (less than requested when PARTIALLY_APPROVED). */
  approvedAmount?: Money;
}

/** A capture's or void's result: no card, no approval amount (a capture's amount only for the check). */
export function outcomeOfFollowOn(result: CaptureResult | VoidResult): CardOutcome {
  return {
    ...processedOutcome(result),
    answered: 'amount' in result ? { amount: result.amount } : {},
  };
}

function processedOutcome(result: CaptureResult | VoidResult | AuthorizeCardResult): CardOutcome {
  return {
    result: result.result,
    gatewayCode: result.gatewayCode,
    ...(result.acquirerCode ? { acquirerCode: result.acquirerCode } : {}),
    ...(result.acquirerMessage ? { acquirerMessage: result.acquirerMessage } : {}),
    acquirer: { ...result.acquirer },
    authorizationResponse: { ...result.authorizationResponse },
    receipt: result.receipt,
  };
}

/** An authorisation's or payment's result, its card masked. */
export function outcomeOfAuthorization(result: AuthorizeCardResult): CardOutcome {
  return {
    ...processedOutcome(result),
    ...(result.authorizationCode ? { authorizationCode: result.authorizationCode } : {}),
    card: cardForResponse(result.card),
    cardSecurityCode: { ...result.cardSecurityCode },
    avs: { ...result.avs },
    approvedAmount: result.approvedAmount,
    answered: { amount: result.approvedAmount, requestedAmount: result.requestedAmount },
  };
}
