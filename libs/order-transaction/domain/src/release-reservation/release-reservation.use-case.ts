import { Injectable } from '@nestjs/common';
import { LedgerRepository } from '@gateway/order-transaction/data-access';
import { deriveOrderState } from '../order-state/derive-order-state';
import { entryOfRow } from '../record-operation/ledger-write';

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
 * (docs/decisions/refund-reservation.md). One database transaction on the locked order row:
 * the lock, then one statement.
 *
 * The order is put back as it was before the reservation by recomputing, not by restoring a
 * copy: a reservation on an existing order leaves the order's own fields (amount, details,
 * notification URL) as they were (RecordOperation writes them at the completion), and every
 * column it did move (status, totals, operation count, last update) is derived from the
 * transactions that remain. A record written on the order between the reservation and the
 * release (two writers without the Redis lock) is therefore kept, where a copy of the order
 * from before the reservation would erase it, and would number the next record with a
 * sequence that record already holds.
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
      // Current: lockOrder reads the transactions again when it waited behind another writer.
      const others = contents.transactions.filter((t) => t !== reserved);
      if (others.length === 0) {
        await writer.releaseTransaction({ merchantId, orderId, transactionId }, null);
        return;
      }
      // As RecordOperation derives the order from its transactions, targets included.
      const state = deriveOrderState(order.currency, others.map(entryOfRow));
      // Tokens only move forward: the reservation proved this one, so older holders stay fenced out.
      const fence = BigInt(command.fencingToken) > BigInt(order.lastFencingToken) ? command.fencingToken : order.lastFencingToken;
      await writer.releaseTransaction(
        { merchantId, orderId, transactionId },
        {
          status: state.status,
          totalAuthorizedAmount: state.totalAuthorizedAmount.toFixed(),
          totalCapturedAmount: state.totalCapturedAmount.toFixed(),
          totalRefundedAmount: state.totalRefundedAmount.toFixed(),
          lastFencingToken: fence,
        },
      );
    });
  }
}
