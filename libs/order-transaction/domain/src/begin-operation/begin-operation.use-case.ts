import { Injectable } from '@nestjs/common';
import { BeginOperationMessage, BeginOperationReply } from '@gateway/contracts';
import { LedgerRepository, SeenOrder } from '@gateway/order-transaction/data-access';
import { snapshotOf, orderView } from '../ledger-response/order-snapshot';
import { assertFenceCurrent, replayOf, requireFencingToken, transactionIdTaken } from '../ledger-protocol/ledger-checks';

/** Begin's answer, and the order as its read saw it (null: no order). */
export interface Begun {
  reply: BeginOperationReply;
  seen: SeenOrder | null;
}

/**
 * The ledger's first step, before an operation's side effects: one read, no lock, no write.
 * A new order (the common VERIFY) costs a single index probe that finds nothing.
 */
@Injectable()
export class BeginOperation {
  constructor(private readonly ledger: LedgerRepository) {}

  async execute(message: BeginOperationMessage): Promise<BeginOperationReply> {
    return (await this.read(message)).reply;
  }

  /**
   * execute, for an operation run in this process, which also gets the order as begin read it:
   * its first record (RecordOperation's `seen`) is decided on that view and written only if
   * the order is still as seen, without a read of its own.
   */
  async read(message: BeginOperationMessage): Promise<Begun> {
    const fence = requireFencingToken(message.envelope);
    const seen = await this.ledger.findForBegin(message.envelope.merchant.id, message.orderId, message.transactionId, message.apiOperation);
    if (!seen) {
      return { reply: { outcome: 'PROCEED', order: null }, seen };
    }
    assertFenceCurrent(fence, seen.order);
    const replay = replayOf(seen.contents.stored, message.requestHash, message);
    if (replay) {
      return { reply: { outcome: 'REPLAY', body: replay }, seen };
    }
    const taken = seen.contents.transactions.some((t) => t.transactionId === message.transactionId);
    if (taken && !message.addressesExistingTransaction) {
      throw transactionIdTaken(message.transactionId);
    }
    return { reply: { outcome: 'PROCEED', order: orderView(snapshotOf(seen.order), seen.contents.transactions) }, seen };
  }
}
