import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CardVerificationMessage, CardVerificationReply, OperationReply, SUBJECTS } from '@gateway/contracts';
import { parseMessage, parseOrderOperationMessage } from '@gateway/platform';
import { VerifyCard, VerifyCardForToken } from '@gateway/verification/domain';

/** The verification service's operations: transport only, the use cases hold the rules. */
@Controller()
export class VerificationNatsController {
  constructor(
    private readonly verifyCard: VerifyCard,
    private readonly verifyCardForToken: VerifyCardForToken,
  ) {}

  /** `PUT .../order/{orderid}/transaction/{transactionid}` with `apiOperation: VERIFY`. */
  @MessagePattern(SUBJECTS.verification.verify)
  verify(@Payload() data: unknown): Promise<OperationReply> {
    // The body is validated again with the edge's request class: no caller is trusted.
    const { message, request } = parseOrderOperationMessage(data, 'VERIFY');
    return this.verifyCard.execute({
      envelope: message.envelope,
      orderId: message.orderId,
      transactionId: message.transactionId,
      request,
      body: message.body,
      ...(message.session ? { session: message.session } : {}),
    });
  }

  /** The token vault's ACQUIRER verification strategy. */
  @MessagePattern(SUBJECTS.verification.verifyCard)
  verifyCardOfToken(@Payload() data: unknown): Promise<CardVerificationReply> {
    return this.verifyCardForToken.execute(parseMessage(CardVerificationMessage, data));
  }
}
