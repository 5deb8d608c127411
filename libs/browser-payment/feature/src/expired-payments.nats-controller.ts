import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  ExpiredPaymentsQuery,
  ExpiredPaymentsReply,
  SettleExpiredPaymentMessage,
  SettleExpiredPaymentReply,
  SUBJECTS,
} from '@gateway/contracts';
import { SettleExpiredPayments } from '@gateway/browser-payment/domain';
import { parseMessage } from '@gateway/platform';

/** The edge's sweep of payments whose redirect token expired (expired-payment.messages.ts). */
@Controller()
export class ExpiredPaymentsNatsController {
  constructor(private readonly expired: SettleExpiredPayments) {}

  @MessagePattern(SUBJECTS.browserPayment.expiredDue)
  due(@Payload() data: unknown): Promise<ExpiredPaymentsReply> {
    return this.expired.due(parseMessage(ExpiredPaymentsQuery, data));
  }

  @MessagePattern(SUBJECTS.browserPayment.expiredSettle)
  settle(@Payload() data: unknown): Promise<SettleExpiredPaymentReply> {
    return this.expired.settle(parseMessage(SettleExpiredPaymentMessage, data));
  }
}
