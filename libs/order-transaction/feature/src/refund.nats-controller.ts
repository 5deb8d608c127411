import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { OperationReply, SUBJECTS } from '@gateway/contracts';
import { RefundOrder } from '@gateway/order-transaction/domain';
import { parseOrderOperationMessage } from '@gateway/platform';

/** `apiOperation: REFUND`, from the edge (under the order's lock) or any service. */
@Controller()
export class RefundNatsController {
  constructor(private readonly refundOrder: RefundOrder) {}

  @MessagePattern(SUBJECTS.orderTransaction.refund)
  refund(@Payload() data: unknown): Promise<OperationReply> {
    const { message, request } = parseOrderOperationMessage(data, 'REFUND');
    return this.refundOrder.execute({
      envelope: message.envelope,
      orderId: message.orderId,
      transactionId: message.transactionId,
      request,
      body: message.body,
      ...(message.asSent ? { asSent: message.asSent } : {}),
      ...(message.session ? { session: message.session } : {}),
      ...(message.deadline !== undefined ? { deadline: message.deadline } : {}),
    });
  }
}
