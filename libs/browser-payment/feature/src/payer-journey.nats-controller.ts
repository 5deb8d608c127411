import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  PayerDecisionMessage,
  PayerReply,
  PayerResolveReply,
  PayerStepMessage,
  PayerTokenMessage,
  SUBJECTS,
} from '@gateway/contracts';
import { RecordPayerDecision, ResolvePayerToken, ReturnFromProvider, ShowProviderPage } from '@gateway/browser-payment/domain';
import { parseMessage } from '@gateway/platform';

/** The payer's browser on /bpui/..., forwarded by the edge (payer-journey.messages.ts). */
@Controller()
export class PayerJourneyNatsController {
  constructor(
    private readonly resolveToken: ResolvePayerToken,
    private readonly showProviderPage: ShowProviderPage,
    private readonly recordDecision: RecordPayerDecision,
    private readonly returnFromProvider: ReturnFromProvider,
  ) {}

  @MessagePattern(SUBJECTS.browserPayment.payerResolve)
  resolve(@Payload() data: unknown): Promise<PayerResolveReply> {
    return this.resolveToken.execute(parseMessage(PayerTokenMessage, data));
  }

  @MessagePattern(SUBJECTS.browserPayment.payerRedirect)
  redirect(@Payload() data: unknown): Promise<PayerReply> {
    return this.showProviderPage.execute(parseMessage(PayerStepMessage, data));
  }

  @MessagePattern(SUBJECTS.browserPayment.payerDecide)
  decide(@Payload() data: unknown): Promise<PayerReply> {
    return this.recordDecision.execute(parseMessage(PayerDecisionMessage, data));
  }

  @MessagePattern(SUBJECTS.browserPayment.payerReturn)
  back(@Payload() data: unknown): Promise<PayerReply> {
    return this.returnFromProvider.execute(parseMessage(PayerStepMessage, data));
  }
}
