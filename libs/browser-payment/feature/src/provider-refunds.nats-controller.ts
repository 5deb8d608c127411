import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Type } from 'class-transformer';
import { IsString, Length, Matches, ValidateNested } from 'class-validator';
import { LEDGER_AMOUNT, ProviderRefundMessage, ProviderRefundReply, RequestEnvelope, SUBJECTS } from '@gateway/contracts';
import { RefundAtProvider } from '@gateway/browser-payment/domain';
import { parseMessage } from '@gateway/platform';

/** provider-refund.messages.ts's message, checked like every message a service receives. */
export class ProviderRefundMessageSchema implements ProviderRefundMessage {
  @ValidateNested()
  @Type(() => RequestEnvelope)
  envelope: RequestEnvelope;

  @IsString()
  @Length(1, 40)
  orderId: string;

  @IsString()
  @Length(1, 40)
  transactionId: string;

  @IsString()
  @Length(1, 40)
  targetTransactionId: string;

  @Matches(LEDGER_AMOUNT)
  amount: string;

  @Matches(/^[A-Z]{3}$/)
  currency: string;
}

/** The ledger's REFUND of a provider-funded order: the provider adapters return the money. */
@Controller()
export class ProviderRefundsNatsController {
  constructor(private readonly refundAtProvider: RefundAtProvider) {}

  @MessagePattern(SUBJECTS.browserPayment.refund)
  refund(@Payload() data: unknown): Promise<ProviderRefundReply> {
    return this.refundAtProvider.execute(parseMessage(ProviderRefundMessageSchema, data));
  }
}
