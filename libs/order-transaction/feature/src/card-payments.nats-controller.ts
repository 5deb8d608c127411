import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { OperationReply, OrderApiOperation, SUBJECTS } from '@gateway/contracts';
import { CaptureOrder, PayByCard, VerifyCard, VoidTransaction } from '@gateway/order-transaction/domain';
import { parseOrderOperationMessage, ReceivedOrderOperation } from '@gateway/platform';

/** `apiOperation` VERIFY, AUTHORIZE, PAY, CAPTURE and VOID, from the edge (under the order's lock) or any service. */
@Controller()
export class CardPaymentsNatsController {
  constructor(
    private readonly verifyCard: VerifyCard,
    private readonly payByCard: PayByCard,
    private readonly captureOrder: CaptureOrder,
    private readonly voidTransaction: VoidTransaction,
  ) {}

  /** The body is validated again with the edge's request class: no caller is trusted. */
  @MessagePattern(SUBJECTS.orderTransaction.verify)
  verify(@Payload() data: unknown): Promise<OperationReply> {
    return this.verifyCard.execute(commandOf(parseOrderOperationMessage(data, 'VERIFY')));
  }

  @MessagePattern(SUBJECTS.orderTransaction.authorize)
  authorize(@Payload() data: unknown): Promise<OperationReply> {
    return this.payByCard.execute(commandOf(parseOrderOperationMessage(data, 'AUTHORIZE')));
  }

  @MessagePattern(SUBJECTS.orderTransaction.pay)
  pay(@Payload() data: unknown): Promise<OperationReply> {
    return this.payByCard.execute(commandOf(parseOrderOperationMessage(data, 'PAY')));
  }

  @MessagePattern(SUBJECTS.orderTransaction.capture)
  capture(@Payload() data: unknown): Promise<OperationReply> {
    return this.captureOrder.execute(commandOf(parseOrderOperationMessage(data, 'CAPTURE')));
  }

  @MessagePattern(SUBJECTS.orderTransaction.void)
  void(@Payload() data: unknown): Promise<OperationReply> {
    return this.voidTransaction.execute(commandOf(parseOrderOperationMessage(data, 'VOID')));
  }
}

function commandOf<K extends OrderApiOperation>({ message, request }: ReceivedOrderOperation<K>) {
  return {
    envelope: message.envelope,
    orderId: message.orderId,
    transactionId: message.transactionId,
    request,
    body: message.body,
    ...(message.asSent ? { asSent: message.asSent } : {}),
    ...(message.session ? { session: message.session } : {}),
    ...(message.deadline !== undefined ? { deadline: message.deadline } : {}),
  };
}
