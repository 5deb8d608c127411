import { Injectable } from '@nestjs/common';
import { BeginOperationMessage, BeginOperationReply } from '@gateway/contracts';
import { LedgerRepository } from '@gateway/order-transaction/data-access';
import { snapshotOf, orderView } from '../ledger-response/order-snapshot';
import { assertFenceCurrent, replayOf, requireFencingToken, transactionIdTaken } from '../ledger-protocol/ledger-checks';

/**
 * The ledger's first step, before an operation's side effects: one read, no lock, no write.
 * A new order (the common VERIFY) costs a single index probe that finds nothing.
 */
@Injectable()
export class BeginOperation {
  constructor(private readonly ledger: LedgerRepository) {}

  async execute(message: BeginOperationMessage): Promise<BeginOperationReply> {
    const fence = requireFencingToken(message.envelope);
    const found = await this.ledger.findForBegin(
      message.envelope.merchant.id,
      message.orderId,
      message.transactionId,
      message.apiOperation,
    );
    if (!found) {
      return { outcome: 'PROCEED', order: null };
    }
    assertFenceCurrent(fence, found.order);
    const replay = replayOf(found.contents.stored, message.requestHash, message);
    if (replay) {
      return { outcome: 'REPLAY', body: replay };
    }
    const taken = found.contents.transactions.some((t) => t.transactionId === message.transactionId);
    if (taken && !message.addressesExistingTransaction) {
      throw transactionIdTaken(message.transactionId);
    }
    return { outcome: 'PROCEED', order: orderView(snapshotOf(found.order), found.contents.transactions) };
  }
}
