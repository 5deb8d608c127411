import { Injectable } from '@nestjs/common';
import { BeginOperationMessage, BeginOperationReply, JsonObject } from '@gateway/contracts';
import { LedgerRepository, SeenOrder, TargetQuery } from '@gateway/order-transaction/data-access';
import { snapshotOf, orderView } from '../ledger-response/order-snapshot';
import { AbandonedReservations } from '../resolve-unknown/abandoned-reservations';
import { assertFenceCurrent, replayOf, requireFencingToken, RetryAsks, transactionIdTaken } from '../ledger-protocol/ledger-checks';

/** Begin's answer, and the order as its read saw it (null: no order). */
export interface Begun {
  reply: BeginOperationReply;
  seen: SeenOrder | null;
  /** The latest stored response of each transaction the read's TargetQuery matched (empty without one). */
  targetResponses: ReadonlyMap<string, JsonObject>;
}

const NO_TARGETS: ReadonlyMap<string, JsonObject> = new Map();

/**
 * The ledger's first step, before an operation's side effects: one read, no lock, no write.
 * A new order (the common VERIFY) costs a single index probe that finds nothing.
 */
@Injectable()
export class BeginOperation {
  constructor(
    private readonly ledger: LedgerRepository,
    private readonly abandoned: AbandonedReservations,
  ) {}

  async execute(message: BeginOperationMessage): Promise<BeginOperationReply> {
    return (await this.read(message)).reply;
  }

  /**
   * execute, for an operation run in this process, which also gets the order as begin read it:
   * its first record (RecordOperation's `seen`) is decided on that view and written only if
   * the order is still as seen, without a read of its own. `targets`: an operation on an
   * earlier transaction also gets the stored responses of the transactions it may act on, from
   * the same read. `retry`: what the request asks for (its amount, or a void's target), by which
   * a retry of a transaction recorded from the acquirer's records is recognised (replayOf).
   */
  async read(message: BeginOperationMessage, targets?: TargetQuery, retry?: () => RetryAsks): Promise<Begun> {
    const fence = requireFencingToken(message.envelope);
    const { seen, targetResponses } = await this.find(message, targets);
    if (!seen) {
      return { reply: { outcome: 'PROCEED', order: null }, seen, targetResponses };
    }
    // Begin comes before every operation's side effects.
    assertFenceCurrent(fence, seen.order, true);
    // A reservation abandoned PENDING on the order (the merchant's retry of it, or another
    // operation held back by the amount it holds) is queued for inquiry: a check of the rows
    // read, a write only when one is found.
    await this.abandoned.notice(message.envelope.merchant, message.orderId, seen.contents.transactions);
    const replay = replayOf(seen.contents.stored, message.requestHash, message, retry);
    if (replay) {
      return { reply: { outcome: 'REPLAY', body: replay }, seen, targetResponses };
    }
    const taken = seen.contents.transactions.some((t) => t.transactionId === message.transactionId);
    if (taken && !message.addressesExistingTransaction) {
      throw transactionIdTaken(message.transactionId);
    }
    return { reply: { outcome: 'PROCEED', order: orderView(snapshotOf(seen.order), seen.contents.transactions) }, seen, targetResponses };
  }

  private async find(message: BeginOperationMessage, targets: TargetQuery | undefined): Promise<Omit<Begun, 'reply'>> {
    const { envelope, orderId, transactionId, apiOperation } = message;
    if (!targets) {
      return { seen: await this.ledger.findForBegin(envelope.merchant.id, orderId, transactionId, apiOperation), targetResponses: NO_TARGETS };
    }
    const found = await this.ledger.findForBeginWithTargets(envelope.merchant.id, orderId, transactionId, apiOperation, targets);
    return found ?? { seen: null, targetResponses: NO_TARGETS };
  }
}
