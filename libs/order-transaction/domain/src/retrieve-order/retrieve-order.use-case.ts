import { Injectable } from '@nestjs/common';
import { GatewayError, JsonObject, OperationReply, RetrieveOrderMessage } from '@gateway/contracts';
import { LedgerRepository } from '@gateway/order-transaction/data-access';
import { pastDeadlineCheck } from '@gateway/platform';
import { AbandonedReservations, answersPending } from '../resolve-unknown/abandoned-reservations';
import { ledgerOrderFields, snapshotOf, withOrderFields } from '../ledger-response/order-snapshot';

/**
 * GET .../order/{orderid}: the order-level details the merchant gave, the ledger's order
 * fields (status, totals, amounts, times) at the top level, `result` SUCCESS, and
 * `transaction[]`: each transaction as GET .../transaction/{id} returns it, in the order they
 * were first recorded (docs/decisions/order-retrieval.md).
 */
@Injectable()
export class RetrieveOrder {
  constructor(
    private readonly ledger: LedgerRepository,
    private readonly abandoned: AbandonedReservations,
  ) {}

  /**
   * Refused unprocessed (PastDeadlineError) once the edge's deadline has passed: before the first
   * read, once each read holds its connection, and before the abandoned reservations' check
   * (docs/decisions/operation-deadline.md, amendment on reads).
   */
  async execute(message: RetrieveOrderMessage): Promise<OperationReply> {
    const merchantId = message.envelope.merchant.id;
    const inTime = pastDeadlineCheck(message.deadline);
    inTime?.();
    const row = await this.ledger.findOrder(merchantId, message.orderId, inTime);
    if (!row) {
      throw orderNotFound(message.orderId);
    }
    const order = snapshotOf(row);
    const transactions = await this.ledger.latestResponses(merchantId, message.orderId, inTime);
    const pending = transactions.find(answersPending);
    if (pending && typeof (pending.transaction as JsonObject | undefined)?.id === 'string') {
      inTime?.();
      await this.abandoned.noticeOnRetrieval(message.envelope.merchant, message.orderId, (pending.transaction as JsonObject).id as string);
    }
    return {
      body: {
        ...row.details,
        ...ledgerOrderFields(order),
        result: 'SUCCESS',
        transaction: transactions.map((body) => withOrderFields(body, order)),
      },
    };
  }
}

export function orderNotFound(orderId: string): GatewayError {
  return new GatewayError('NOT_FOUND', { explanation: `No order '${orderId}' was found for this merchant.` });
}
