import { Injectable } from '@nestjs/common';
import { GatewayError, OperationReply, RetrieveTransactionMessage } from '@gateway/contracts';
import { LedgerRepository } from '@gateway/order-transaction/data-access';
import { pastDeadlineCheck } from '@gateway/platform';
import { AbandonedReservations, answersPending } from '../resolve-unknown/abandoned-reservations';
import { snapshotOf, withOrderFields } from '../ledger-response/order-snapshot';
import { orderNotFound } from '../retrieve-order/retrieve-order.use-case';

/**
 * GET .../order/{orderid}/transaction/{transactionid}: the stored response of the latest
 * operation on the transaction (a confirmed browser payment reads as its confirm), exactly as
 * stored, with only the ledger's `order` fields replaced by the order's current ones.
 */
@Injectable()
export class RetrieveTransaction {
  constructor(
    private readonly ledger: LedgerRepository,
    private readonly abandoned: AbandonedReservations,
  ) {}

  /**
   * Refused unprocessed (PastDeadlineError) once the edge's deadline has passed: before the read,
   * once its connection is held, and before the abandoned reservations' check; a read changes
   * nothing, but nobody waits for its answer (docs/decisions/operation-deadline.md, amendment on reads).
   */
  async execute(message: RetrieveTransactionMessage): Promise<OperationReply> {
    const inTime = pastDeadlineCheck(message.deadline);
    inTime?.();
    const found = await this.ledger.findTransactionResponse(
      message.envelope.merchant.id,
      message.orderId,
      message.transactionId,
      inTime,
    );
    if (!found) {
      throw orderNotFound(message.orderId);
    }
    if (!found.body) {
      throw new GatewayError('NOT_FOUND', {
        explanation: `No transaction '${message.transactionId}' was found on order '${message.orderId}'.`,
      });
    }
    if (answersPending(found.body)) {
      inTime?.();
      await this.abandoned.noticeOnRetrieval(message.envelope.merchant, message.orderId, message.transactionId);
    }
    return { body: withOrderFields(found.body, snapshotOf(found.order)) };
  }
}
