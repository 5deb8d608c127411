import { Injectable } from '@nestjs/common';
import {
  BeginOperationMessage,
  BeginOperationReply,
  RecordOperationMessage,
  RecordOperationReply,
  SUBJECTS,
} from '@gateway/contracts';
import { MessageBus } from '@gateway/platform';

/**
 * The order ledger (order-transaction) as verification talks to it: `begin` before the
 * acquirer is called, `record` after (ledger.messages.ts). Errors arrive as the ledger's coded
 * errors (ORDER_LOCK_LOST, 400s) or SERVER_BUSY when it does not answer in time.
 */
@Injectable()
export class OrderLedger {
  constructor(private readonly bus: MessageBus) {}

  begin(message: BeginOperationMessage): Promise<BeginOperationReply> {
    return this.bus.request(SUBJECTS.orderTransaction.ledgerBegin, message);
  }

  record(message: RecordOperationMessage): Promise<RecordOperationReply> {
    return this.bus.request(SUBJECTS.orderTransaction.ledgerRecord, message);
  }
}
