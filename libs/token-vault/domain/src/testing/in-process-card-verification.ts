import { AcquirerRegistry, expiryForResponse, Pan, parseCardExpiry, SecurityCode } from '@gateway/acquirer';
import type { CardVerificationMessage, CardVerificationReply } from '@gateway/contracts';
import type { CardVerificationService } from '../verification/acquirer-card-verifier';

/**
 * What the verification service does with `verification.card.verify.v1`, in process, for unit
 * tests of the vault: the same test acquirer through a registry. Records the messages it got, so
 * a test can tell which card numbers left the vault.
 */
export class InProcessCardVerification implements CardVerificationService {
  readonly received: CardVerificationMessage[] = [];

  constructor(private readonly acquirers: AcquirerRegistry) {}

  async verifyCard(message: CardVerificationMessage): Promise<CardVerificationReply> {
    this.received.push(message);
    const result = await this.acquirers.forMerchant(message.envelope.merchant).verify({
      merchantId: message.envelope.merchant.id,
      orderId: message.reference,
      transactionId: message.reference,
      currency: message.currency,
      card: {
        number: Pan.of(message.card.number),
        expiry: parseCardExpiry(message.card.expiry.month, message.card.expiry.year),
        ...(message.card.securityCode ? { securityCode: SecurityCode.of(message.card.securityCode) } : {}),
      },
      ...(message.billingAddress ? { cardholder: { billingAddress: message.billingAddress } } : {}),
    });
    return {
      gatewayCode: result.gatewayCode,
      result: result.result,
      cardSecurityCode: { ...result.cardSecurityCode },
      avs: { ...result.avs },
      card: { number: result.card.maskedNumber, expiry: expiryForResponse(result.card.expiry) },
    };
  }
}
