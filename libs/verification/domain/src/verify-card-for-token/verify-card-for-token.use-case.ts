import { Injectable } from '@nestjs/common';
import {
  AcquirerRegistry,
  expiryForResponse,
  Pan,
  parseCardExpiry,
  SecurityCode,
  VerifyCardRequest,
  VerifyCardResult,
} from '@gateway/acquirer';
import type { CardVerificationMessage, CardVerificationReply, MaskedCard } from '@gateway/contracts';

/**
 * `verification.card.verify.v1`: the token vault's ACQUIRER verification strategy. The card
 * the merchant is saving is verified at the merchant's acquirer (a live merchant without one
 * gets ACQUIRER_NOT_CONFIGURED before anything is sent) and the acquirer's outcome, security
 * code and AVS results are answered as they came: mapping them to the token's
 * EXTERNAL_VERIFICATION_* codes is the vault's business. No ledger record: a token save is
 * not an order operation (card-verification.messages.ts).
 */
@Injectable()
export class VerifyCardForToken {
  constructor(private readonly acquirers: AcquirerRegistry) {}

  async execute(message: CardVerificationMessage): Promise<CardVerificationReply> {
    const connector = this.acquirers.forMerchant(message.envelope.merchant);
    const result = await connector.verify(acquirerRequest(message));
    return reply(result, message.card.nameOnCard);
  }
}

/**
 * The message was validated field by field (parseMessage): the value types only re-wrap it,
 * so the number and security code print masked from here on.
 */
function acquirerRequest(message: CardVerificationMessage): VerifyCardRequest {
  const { card, billingAddress } = message;
  return {
    merchantId: message.envelope.merchant.id,
    // A token save has no order: the vault's reference stands for both ids at the acquirer.
    orderId: message.reference,
    transactionId: message.reference,
    currency: message.currency,
    card: {
      number: Pan.of(card.number),
      expiry: parseCardExpiry(card.expiry.month, card.expiry.year),
      ...(card.securityCode !== undefined ? { securityCode: SecurityCode.of(card.securityCode) } : {}),
      ...(card.nameOnCard !== undefined ? { nameOnCard: card.nameOnCard } : {}),
    },
    ...(billingAddress ? { cardholder: { billingAddress: { ...billingAddress } } } : {}),
  };
}

function reply(result: VerifyCardResult, nameOnCard: string | undefined): CardVerificationReply {
  const card: MaskedCard = {
    number: result.card.maskedNumber,
    expiry: expiryForResponse(result.card.expiry),
    brand: result.card.brand,
    scheme: result.card.scheme,
    fundingMethod: result.card.fundingMethod,
    ...(nameOnCard !== undefined ? { nameOnCard } : {}),
  };
  return {
    gatewayCode: result.gatewayCode,
    result: result.result,
    ...(result.acquirerCode !== undefined ? { acquirerCode: result.acquirerCode } : {}),
    ...(result.acquirerMessage !== undefined ? { acquirerMessage: result.acquirerMessage } : {}),
    cardSecurityCode: { ...result.cardSecurityCode },
    avs: { ...result.avs },
    card,
  };
}
