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
   * Refused unprocessed (PastDeadlineError) once the edge's deadline has passed: before the read,
   * once it holds its connection, and before the abandoned reservations' check
   * (docs/decisions/operation-deadline.md, amendment on reads).
   */
  async execute(message: RetrieveOrderMessage): Promise<OperationReply> {
    const merchantId = message.envelope.merchant.id;
    const inTime = pastDeadlineCheck(message.deadline);
    inTime?.();
    // One read: the order's fields and its transactions as of the same commit.
    const found = await this.ledger.findOrderWithResponses(merchantId, message.orderId, inTime);
    if (!found) {
      throw orderNotFound(message.orderId);
    }
    const row = found.order;
    const order = snapshotOf(row);
    const transactions = found.responses;
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
