import type { CardVerificationMessage, CardVerificationReply } from '@gateway/contracts';
import type { AcquirerRegistry } from './acquirer-registry';
import type { AcquirerAddress, VerifyCardRequest } from './acquirer-requests';
import type { VerifyCardResult } from './acquirer-results';
import { parseCardExpiry } from './card/card-expiry';
import { cardForResponse } from './card/card-for-response';
import { Pan } from './card/pan';
import { SecurityCode } from './card/security-code';

/**
 * A token's ACQUIRER verification (spec token rule 9) at the merchant's acquirer, built in this
 * one place for every process that makes it: the verification service for a number the merchant
 * sent in clear (`verification.card.verify.v1`), the token vault for a card in its custody, and
 * the vault's in-process stand-in for the service in its unit tests. Built once, the three cannot
 * send the acquirer different requests or answer different replies.
 */
export interface TokenVerification {
  readonly merchantId: string;
  /** How the acquirer references the call: a token save has no order (the token, or the request id). */
  readonly reference: string;
  /** The currency the acquirer verifies in (the token request's `transaction.currency`). */
  readonly currency: string;
  readonly card: {
    readonly number: Pan;
    /** As the spec carries it: month "1" or "01", two-digit year. */
    readonly expiry: { readonly month: string; readonly year: string };
    readonly securityCode?: SecurityCode;
    readonly nameOnCard?: string;
  };
  readonly billingAddress?: AcquirerAddress;
}

export function tokenVerificationRequest(verification: TokenVerification): VerifyCardRequest {
  const { card, billingAddress } = verification;
  return {
    merchantId: verification.merchantId,
    // A token save has no order: the reference stands for both ids at the acquirer.
    orderId: verification.reference,
    transactionId: verification.reference,
    currency: verification.currency,
    card: {
      number: card.number,
      expiry: parseCardExpiry(card.expiry.month, card.expiry.year),
      ...(card.securityCode !== undefined ? { securityCode: card.securityCode } : {}),
      ...(card.nameOnCard !== undefined ? { nameOnCard: card.nameOnCard } : {}),
    },
    ...(billingAddress ? { cardholder: { billingAddress: { ...billingAddress } } } : {}),
  };
}

/**
 * What `verification.card.verify.v1` answers for a message its handler validated (parseMessage):
 * the acquirer's outcome, security code and AVS results as they came, the card masked. The value
 * types re-wrap the message's number and security code, so they print masked from here on.
 */
export async function answerCardVerification(
  acquirers: AcquirerRegistry,
  message: CardVerificationMessage,
): Promise<CardVerificationReply> {
  const connector = acquirers.forMerchant(message.envelope.merchant);
  const { card } = message;
  const result = await connector.verify(
    tokenVerificationRequest({
      merchantId: message.envelope.merchant.id,
      reference: message.reference,
      currency: message.currency,
      card: {
        number: Pan.of(card.number),
        expiry: card.expiry,
        ...(card.securityCode !== undefined ? { securityCode: SecurityCode.of(card.securityCode) } : {}),
        ...(card.nameOnCard !== undefined ? { nameOnCard: card.nameOnCard } : {}),
      },
      ...(message.billingAddress ? { billingAddress: message.billingAddress } : {}),
    }),
  );
  return cardVerificationReply(result, card.nameOnCard);
}

function cardVerificationReply(
  result: VerifyCardResult,
  nameOnCard: string | undefined,
): CardVerificationReply {
  return {
    gatewayCode: result.gatewayCode,
    result: result.result,
    ...(result.acquirerCode !== undefined ? { acquirerCode: result.acquirerCode } : {}),
    ...(result.acquirerMessage !== undefined ? { acquirerMessage: result.acquirerMessage } : {}),
    cardSecurityCode: { ...result.cardSecurityCode },
    avs: { ...result.avs },
    card: cardForResponse(result.card, { nameOnCard }),
  };
}
