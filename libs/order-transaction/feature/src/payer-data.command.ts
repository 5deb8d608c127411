import type { ErasePayerData, PayerDataErasure } from '@gateway/order-transaction/domain';
import { CommandIo, payerDataEraseLine, PayerDataEraseCommand, runPayerDataErase } from '@gateway/platform';

export const PAYER_DATA_USAGE = `Usage: node dist/apps/order-transaction/src/main.js payer-data erase <merchantId> <orderId> [<orderId> ...] [--dry-run] [--json]
       (standalone profile: node dist/apps/gateway/src/main.js payer-data erase ...)

A payer's personal data in the ledger (docs/decisions/payer-personal-data.md), for a payer's
erasure request the merchant forwards:
  erase <merchantId> <orderId> [...]
      strip the payer's personal data (billing, shipping, customer, device, recipient, name on
      card, account holders and e-mails, the order's notes and custom fields, an agreement's
      custom data) from the named orders of the merchant: from each order's details, every
      stored operation response, and every webhook notification of the order (PENDING, FAILED
      and DELIVERED); the query and fragment of the order's notification URL and of its
      notifications' URLs (later notifications of the order go to the URL without them); and
      the custom data of the agreements the order's payments named (the agreement's terms stay,
      and later payments in the series no longer reuse that text). Kept: ids, amounts,
      currency, status, result and gateway codes, the masked card, the acquirer's references,
      and what the merchant's replay of a request is matched on, so GET and a replay then
      answer the same money without those fields, and a replay still has no side effect. Each
      order in a database transaction of its own, holding the order's row as the ledger's
      writes do; a notification being delivered meanwhile is waited for (up to the webhook
      timeout), the order's row let go meanwhile. Prints counts only, never the data. Running
      it again changes nothing (and says so). --dry-run prints what it would change and writes
      nothing.
      A transaction Postgres ends as a deadlock victim or for a serialization failure (against
      the webhook dispatcher or the purge) wrote nothing and is run again after a short pause,
      up to 3 times in all. An order whose erasure still fails (aborted 3 times, a statement
      timeout, a delivery still in flight after the wait) is said on stderr with the database's
      reason (FAILED in --json), nothing of it written; the command goes on with the others:
      run it again for that order.
      Exit code 0: done (or nothing left to erase); 1: an order the merchant does not have, or one
      that failed (the others are erased); 2: usage.
      Browser payments' stored requests, return URLs and provider details are erased by
      browser-payment's own command (in its image; standalone: this same command erases both).

Options:
  --json   machine-readable output
Runs with order-transaction's DATABASE_URL (the ledger is in its schema).
`;

/** The ledger's erasure as the command says it: its counts, per order and in total. */
export const LEDGER_PAYER_DATA_ERASE: PayerDataEraseCommand<PayerDataErasure> = {
  usage: PAYER_DATA_USAGE,
  counts: [
    { key: 'details', one: 'order details', many: 'order details', flag: true },
    { key: 'notificationUrl', one: 'notification URL', flag: true },
    { key: 'responses', one: 'stored response' },
    { key: 'notifications', one: 'notification' },
    { key: 'agreements', one: 'agreement' },
  ],
  notFound: 'the merchant has no such order',
};

/** The commands themselves, over the ledger's erasure (the mains and the tests call it). */
export function runPayerDataCommand(argv: string[], erasure: Pick<ErasePayerData, 'execute'>, io: CommandIo): Promise<number> {
  return runPayerDataErase(argv, LEDGER_PAYER_DATA_ERASE, erasure, io);
}

/** The command's line, or its answer when the line alone answers it: no database needed. */
export function payerDataLine(argv: string[], io: CommandIo) {
  return payerDataEraseLine(argv, io, PAYER_DATA_USAGE);
}
