import { Injectable } from '@nestjs/common';
import { JsonObject, OperationReply, RetrieveOrderMessage, RetrieveTransactionMessage, SUBJECTS } from '@gateway/contracts';
import { MessageBus } from '@gateway/platform';
import { envelopeOf, RequestContext } from '../api/request-envelope';

export interface OrderRetrievalCommand extends RequestContext {
  orderId: string;
  /** Absent: the whole order; present: one transaction on it. */
  transactionId?: string;
}

/**
 * GET .../order/{orderid}[/transaction/{transactionid}]: a read from the ledger. No order lock:
 * the ledger answers from committed data, and a read never blocks an operation. Stamped with the
 * deadline: a read the ledger could only make after this edge stopped waiting is refused
 * unprocessed, and answered 503 with the plain explanation, as a timeout of a read is
 * (docs/decisions/operation-deadline.md, amendment on reads).
 */
@Injectable()
export class DispatchOrderRetrieval {
  constructor(private readonly bus: MessageBus) {}

  async execute(command: OrderRetrievalCommand): Promise<JsonObject> {
    const envelope = envelopeOf(command);
    const reply =
      command.transactionId === undefined
        ? await this.bus.request<OperationReply>(SUBJECTS.orderTransaction.retrieveOrder, {
            envelope,
            orderId: command.orderId,
            deadline: this.bus.deadline(),
          } satisfies RetrieveOrderMessage)
        : await this.bus.request<OperationReply>(SUBJECTS.orderTransaction.retrieveTransaction, {
            envelope,
            orderId: command.orderId,
            transactionId: command.transactionId,
            deadline: this.bus.deadline(),
          } satisfies RetrieveTransactionMessage);
    return reply.body;
  }
}
