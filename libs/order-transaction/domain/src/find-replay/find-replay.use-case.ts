import { Injectable } from '@nestjs/common';
import { FindReplayMessage, FindReplayReply } from '@gateway/contracts';
import { LedgerRepository } from '@gateway/order-transaction/data-access';
import { pastDeadlineCheck, RequestHasher } from '@gateway/platform';

/**
 * An order operation naming a payment session that is unknown or expired: the edge could not fill
 * it, so it may only be answered as a replay (docs/decisions/payment-sessions.md, amendment
 * 2026-11-27). The stored response of this (order, transaction, apiOperation) if its request hash
 * is that of the body as sent (requestHashBasis: what the operation hashed), else nothing, and the
 * edge answers the session's 400. One read, begin's: no fencing token, no lock, no reservation, no
 * write (not even the abandoned reservations' notice a begin makes), and no acquirer.
 * A transaction recorded from the acquirer's records (RECORDED_WITHOUT_REQUEST) is not answered:
 * what it asks for may be in the session.
 */
@Injectable()
export class FindReplay {
  constructor(
    private readonly ledger: LedgerRepository,
    private readonly requestHasher: RequestHasher,
  ) {}

  async execute(message: FindReplayMessage): Promise<FindReplayReply> {
    pastDeadlineCheck(message.deadline)?.();
    const { envelope, orderId, transactionId, apiOperation } = message;
    const seen = await this.ledger.findForBegin(envelope.merchant.id, orderId, transactionId, apiOperation);
    const stored = seen?.contents.stored;
    return stored && stored.requestHash === this.requestHasher.hash(message.body)
      ? { body: stored.body }
      : {};
  }
}
