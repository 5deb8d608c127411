import { Injectable } from '@nestjs/common';
import { AcquirerRegistry, answerCardVerification } from '@gateway/acquirer';
import type { CardVerificationMessage, CardVerificationReply } from '@gateway/contracts';

/**
 * `verification.card.verify.v1`: the token vault's ACQUIRER verification strategy. The card
 * the merchant is saving is verified at the merchant's acquirer (a live merchant without one
 * gets ACQUIRER_NOT_CONFIGURED before anything is sent) and the acquirer's outcome, security
 * code and AVS results are answered as they came: mapping them to the token's
 * EXTERNAL_VERIFICATION_* codes is the vault's business. No ledger record: a token save is
 * not an order operation (card-verification.messages.ts).
 *
 * The request and the reply are built in libs/acquirer (token-verification.ts), which the vault
 * also uses for a card in its custody and for its unit tests' stand-in of this service.
 */
@Injectable()
export class VerifyCardForToken {
  constructor(private readonly acquirers: AcquirerRegistry) {}

  execute(message: CardVerificationMessage): Promise<CardVerificationReply> {
    return answerCardVerification(this.acquirers, message);
  }
}
