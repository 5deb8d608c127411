import { Injectable } from '@nestjs/common';
import { CardVerificationMessage, CardVerificationReply, SUBJECTS } from '@gateway/contracts';
import { MessageBus } from '@gateway/platform';
import type { CardVerificationService } from '@gateway/token-vault/domain';

/**
 * `verification.card.verify.v1` over the bus. The bus's timeout, "no responders" (SERVER_BUSY)
 * and coded errors (ACQUIRER_NOT_CONFIGURED for a live merchant) reach the token request as
 * they are.
 */
@Injectable()
export class VerificationServiceClient implements CardVerificationService {
  constructor(private readonly bus: MessageBus) {}

  verifyCard(message: CardVerificationMessage): Promise<CardVerificationReply> {
    return this.bus.request<CardVerificationReply>(SUBJECTS.verification.verifyCard, message);
  }
}
