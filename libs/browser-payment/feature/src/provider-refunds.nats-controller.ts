import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ProviderRefundMessage, ProviderRefundReply, SUBJECTS } from '@gateway/contracts';
import { RefundAtProvider } from '@gateway/browser-payment/domain';
import { parseMessage } from '@gateway/platform';
import { ProviderAmountMessageSchema } from './provider-operation.schemas';

/** provider-refund.messages.ts's message, checked like every message a service receives. */
export class ProviderRefundMessageSchema extends ProviderAmountMessageSchema implements ProviderRefundMessage {}

/** The ledger's REFUND of a provider-funded order: the provider adapters return the money. */
@Controller()
export class ProviderRefundsNatsController {
  constructor(private readonly refundAtProvider: RefundAtProvider) {}

  @MessagePattern(SUBJECTS.browserPayment.refund)
  refund(@Payload() data: unknown): Promise<ProviderRefundReply> {
    return this.refundAtProvider.execute(parseMessage(ProviderRefundMessageSchema, data));
  }
}
