import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ProviderCaptureMessage, ProviderCaptureReply, ProviderVoidMessage, SUBJECTS } from '@gateway/contracts';
import { CaptureAtProvider, VoidAtProvider } from '@gateway/browser-payment/domain';
import { parseMessage } from '@gateway/platform';
import { ProviderAmountMessageSchema, ProviderTargetMessageSchema } from './provider-operation.schemas';

/** provider-capture.messages.ts's messages, checked like every message a service receives. */
export class ProviderCaptureMessageSchema extends ProviderAmountMessageSchema implements ProviderCaptureMessage {}
export class ProviderVoidMessageSchema extends ProviderTargetMessageSchema implements ProviderVoidMessage {}

/** The ledger's CAPTURE and VOID of a browser payment's authorisation: the provider adapters make them. */
@Controller()
export class ProviderCapturesNatsController {
  constructor(
    private readonly captureAtProvider: CaptureAtProvider,
    private readonly voidAtProvider: VoidAtProvider,
  ) {}

  @MessagePattern(SUBJECTS.browserPayment.capture)
  capture(@Payload() data: unknown): Promise<ProviderCaptureReply> {
    return this.captureAtProvider.execute(parseMessage(ProviderCaptureMessageSchema, data));
  }

  @MessagePattern(SUBJECTS.browserPayment.void)
  void(@Payload() data: unknown): Promise<ProviderCaptureReply> {
    return this.voidAtProvider.execute(parseMessage(ProviderVoidMessageSchema, data));
  }
}
