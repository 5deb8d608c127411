import { Injectable } from '@nestjs/common';
import { LedgerRepository, TransactionRow } from '@gateway/order-transaction/data-access';
import { deriveOrderState } from '../order-state/derive-order-state';

export interface ReleaseReservationCommand {
  merchantId: string;
  orderId: string;
  transactionId: string;
  apiOperation: string;
  /** The reserving request's hash: only that reservation is released. */
  requestHash: string;
  fencingToken: string;
}

/**
 * Undoes a reservation whose side effect was refused before anything happened (the vault
 * refused the card, nobody served the provider refund): the reserved transaction and its
 * stored response are deleted, and a standalone order that existed only for it too, so the
 * merchant sees an error that created nothing and may reuse the transaction id
 * (docs/decisions/refund-reservation.md). One database transaction on the locked order row.
 */
@Injectable()
export class ReleaseReservation {
  constructor(private readonly ledger: LedgerRepository) {}

  async execute(command: ReleaseReservationCommand): Promise<void> {
    const { merchantId, orderId, transactionId, apiOperation } = command;
    await this.ledger.transaction(async (writer) => {
      const locked = await writer.lockOrder(merchantId, orderId, transactionId, apiOperation);
      const reserved = locked?.contents.transactions.find((t) => t.transactionId === transactionId);
      if (!locked || !reserved || reserved.result !== 'PENDING' || locked.contents.stored?.requestHash !== command.requestHash) {
        throw new Error(`no reservation of ${apiOperation} ${orderId}/${transactionId} to release`);
      }
      const { order, contents } = locked;
      const remaining = await writer.deleteTransaction(merchantId, orderId, transactionId);
      if (remaining === 0) {
        await writer.deleteOrder(merchantId, orderId);
        return;
      }
      const others = contents.transactions.filter((t) => t !== reserved);
      const state = deriveOrderState(order.currency, others.map(entryOf));
      const fence = BigInt(command.fencingToken) > BigInt(order.lastFencingToken) ? command.fencingToken : order.lastFencingToken;
      await writer.saveOrderState({
        merchantId,
        orderId,
        status: state.status,
        totalAuthorizedAmount: state.totalAuthorizedAmount.toFixed(),
        totalCapturedAmount: state.totalCapturedAmount.toFixed(),
        totalRefundedAmount: state.totalRefundedAmount.toFixed(),
        lastFencingToken: fence,
      });
    });
  }
}

function entryOf(row: TransactionRow) {
  return { type: row.type, amount: row.amount, result: row.result };
}
