import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  BeginOperationMessage,
  BeginOperationReply,
  RecordOperationMessage,
  RecordOperationReply,
  SUBJECTS,
} from '@gateway/contracts';
import { BeginOperation, RecordOperation } from '@gateway/order-transaction/domain';
import { parseMessage } from '@gateway/platform';

/** The ledger protocol every order operation goes through (ledger.messages.ts). */
@Controller()
export class LedgerNatsController {
  constructor(
    private readonly beginOperation: BeginOperation,
    private readonly recordOperation: RecordOperation,
  ) {}

  @MessagePattern(SUBJECTS.orderTransaction.ledgerBegin)
  begin(@Payload() data: unknown): Promise<BeginOperationReply> {
    return this.beginOperation.execute(parseMessage(BeginOperationMessage, data));
  }

  @MessagePattern(SUBJECTS.orderTransaction.ledgerRecord)
  async record(@Payload() data: unknown): Promise<RecordOperationReply> {
    const { body } = await this.recordOperation.execute(parseMessage(RecordOperationMessage, data));
    return { body };
  }
}
