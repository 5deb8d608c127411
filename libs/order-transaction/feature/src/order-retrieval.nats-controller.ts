import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { FindReplayMessage, FindReplayReply, OperationReply, RetrieveOrderMessage, RetrieveTransactionMessage, SUBJECTS } from '@gateway/contracts';
import { FindReplay, RetrieveOrder, RetrieveTransaction } from '@gateway/order-transaction/domain';
import { parseMessage } from '@gateway/platform';

/**
 * GET .../order/{orderid} and GET .../order/{orderid}/transaction/{transactionid}, from the edge,
 * and the stored response of an operation whose session is gone (FindReplay): reads only.
 */
@Controller()
export class OrderRetrievalNatsController {
  constructor(
    private readonly retrieveOrder: RetrieveOrder,
    private readonly retrieveTransaction: RetrieveTransaction,
    private readonly findReplay: FindReplay,
  ) {}

  @MessagePattern(SUBJECTS.orderTransaction.retrieveOrder)
  order(@Payload() data: unknown): Promise<OperationReply> {
    return this.retrieveOrder.execute(parseMessage(RetrieveOrderMessage, data));
  }

  @MessagePattern(SUBJECTS.orderTransaction.retrieveTransaction)
  transaction(@Payload() data: unknown): Promise<OperationReply> {
    return this.retrieveTransaction.execute(parseMessage(RetrieveTransactionMessage, data));
  }

  @MessagePattern(SUBJECTS.orderTransaction.findReplay)
  replay(@Payload() data: unknown): Promise<FindReplayReply> {
    return this.findReplay.execute(parseMessage(FindReplayMessage, data));
  }
}
