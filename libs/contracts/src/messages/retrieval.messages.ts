import { Type } from 'class-transformer';
import { IsString, Length, ValidateNested } from 'class-validator';
import { RequestEnvelope } from '../envelope';
import { OperationDeadline } from './operation.messages';

/**
 * `GET .../order/{orderid}`: the order as the ledger knows it, with every transaction on it.
 * Answered by order-transaction with an OperationReply (200 at the edge) or NOT_FOUND.
 */
export class RetrieveOrderMessage {
  @ValidateNested()
  @Type(() => RequestEnvelope)
  envelope: RequestEnvelope;

  @IsString()
  @Length(1, 40)
  orderId: string;

  /**
   * The edge's deadline (OperationDeadline) on a merchant's GET and on the reads the edge makes
   * for an operation: the ledger reads nothing once it has passed (docs/decisions/operation-deadline.md,
   * amendment on reads). A service's own read (browser-payment's) sends none and is never refused for time.
   */
  @OperationDeadline()
  deadline?: number;
}

/**
 * `GET .../order/{orderid}/transaction/{transactionid}`: the stored response of the latest
 * operation on the transaction, with the order's current status and totals.
 */
export class RetrieveTransactionMessage extends RetrieveOrderMessage {
  @IsString()
  @Length(1, 40)
  transactionId: string;
}
