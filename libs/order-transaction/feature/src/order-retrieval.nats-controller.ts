import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { OperationReply, RetrieveOrderMessage, RetrieveTransactionMessage, SUBJECTS } from '@gateway/contracts';
import { RetrieveOrder, RetrieveTransaction } from '@gateway/order-transaction/domain';
import { parseMessage } from '@gateway/platform';

/** GET .../order/{orderid} and GET .../order/{orderid}/transaction/{transactionid}, from the edge. */
@Controller()
export class OrderRetrievalNatsController {
  constructor(
    private readonly retrieveOrder: RetrieveOrder,
    private readonly retrieveTransaction: RetrieveTransaction,
  ) {}

  @MessagePattern(SUBJECTS.orderTransaction.retrieveOrder)
  order(@Payload() data: unknown): Promise<OperationReply> {
    return this.retrieveOrder.execute(parseMessage(RetrieveOrderMessage, data));
  }

  @MessagePattern(SUBJECTS.orderTransaction.retrieveTransaction)
  transaction(@Payload() data: unknown): Promise<OperationReply> {
    return this.retrieveTransaction.execute(parseMessage(RetrieveTransactionMessage, data));
  }
}
