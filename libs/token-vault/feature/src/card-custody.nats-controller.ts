import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AcquirerCallMessage,
  AcquirerCallReply,
  RevealCardMessage,
  RevealCardReply,
  SealCardMessage,
  SealCardReply,
  SUBJECTS,
} from '@gateway/contracts';
import { parseMessage } from '@gateway/platform';
import { CallAcquirer, RevealSessionCard, SealSessionCard } from '@gateway/token-vault/domain';

/** Card custody (card-custody.messages.ts): transport only, the use cases hold the rules. */
@Controller()
export class CardCustodyNatsController {
  constructor(
    private readonly sealSessionCard: SealSessionCard,
    private readonly callAcquirer: CallAcquirer,
    private readonly revealSessionCard: RevealSessionCard,
  ) {}

  @MessagePattern(SUBJECTS.tokenVault.sealCard)
  seal(@Payload() data: unknown): Promise<SealCardReply> {
    const message = parseMessage(SealCardMessage, data);
    return this.sealSessionCard.execute({
      merchant: message.envelope.merchant,
      bindingId: message.bindingId,
      card: message.card,
      previous: message.previous,
      withoutSecurityCode: message.withoutSecurityCode === true,
      deadline: message.deadline,
    });
  }

  @MessagePattern(SUBJECTS.tokenVault.acquirerCall)
  acquirerCall(@Payload() data: unknown): Promise<AcquirerCallReply> {
    const message = parseMessage(AcquirerCallMessage, data);
    return this.callAcquirer.execute({
      merchant: message.envelope.merchant,
      operation: message.operation,
      source: message.source,
      explicit: message.explicit,
      request: message.request,
    });
  }

  @MessagePattern(SUBJECTS.tokenVault.revealCard)
  reveal(@Payload() data: unknown): Promise<RevealCardReply> {
    const message = parseMessage(RevealCardMessage, data);
    return this.revealSessionCard.execute({
      merchant: message.envelope.merchant,
      authMethod: message.envelope.authMethod,
      bindingId: message.bindingId,
      sealed: message.sealed,
      deadline: message.deadline,
    });
  }
}
