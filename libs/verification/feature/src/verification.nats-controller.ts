import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CardVerificationMessage, CardVerificationReply, SUBJECTS } from '@gateway/contracts';
import { parseMessage } from '@gateway/platform';
import { VerifyCardForToken } from '@gateway/verification/domain';

/**
 * The verification service's operations: transport only, the use cases hold the rules. VERIFY
 * on an order is order-transaction's (docs/decisions/verify-in-order-transaction.md).
 */
@Controller()
export class VerificationNatsController {
  constructor(private readonly verifyCardForToken: VerifyCardForToken) {}

  /** The token vault's ACQUIRER verification strategy. */
  @MessagePattern(SUBJECTS.verification.verifyCard)
  verifyCardOfToken(@Payload() data: unknown): Promise<CardVerificationReply> {
    return this.verifyCardForToken.execute(parseMessage(CardVerificationMessage, data));
  }
}
