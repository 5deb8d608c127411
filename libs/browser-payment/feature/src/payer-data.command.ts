import type { BrowserPaymentPayerDataErasure, EraseBrowserPaymentPayerData } from '@gateway/browser-payment/domain';
import { CommandIo, payerDataEraseLine, PayerDataEraseCommand, runPayerDataErase } from '@gateway/platform';

export const PAYER_DATA_USAGE = `Usage: node dist/apps/browser-payment/src/main.js payer-data erase <merchantId> <orderId> [<orderId> ...] [--dry-run] [--json]
       (standalone profile: node dist/apps/gateway/src/main.js payer-data erase ..., which erases the ledger's too)

A payer's personal data in browser-payment (docs/decisions/payer-personal-data.md), for a payer's
erasure request the merchant forwards:
  erase <merchantId> <orderId> [...]
      strip the payer's personal data from the browser payments of the named orders of the
      merchant: from each payment's stored request (customer, shipping, the order's notes and
      custom fields, the transaction's merchant note) and the provider's details of the payer's
      account (account e-mail and holder), and the query and fragment of its return URL (its
      origin and path stay). Kept: ids, amounts, currency, status, result and gateway code, the
      provider's reference, the order's description, items and amounts, the masked account.
      Each order in a database transaction of its own, holding its payments' rows. A payment
      whose journey is not over (result PENDING: the payer's return, the merchant's confirm or
      the expiry is still to come) still needs its request and return URL: its order is refused
      and nothing of it changed; run the command again once the journey has ended or expired.
      Prints counts only, never the data. Running it again changes nothing (and says so).
      --dry-run prints what it would change and writes nothing.
      An order whose erasure fails (a deadlock, a statement timeout) is said on stderr with the
      database's reason (FAILED in --json), nothing of it written; the command goes on with the
      others: run it again for that order.
      Exit code 0: done (or nothing left to erase); 1: an order the merchant has no browser
      payment on, or one refused or failed (the others are erased); 2: usage.
      The ledger's records of the same orders are erased by order-transaction's own command.

Options:
  --json   machine-readable output
Runs with browser-payment's DATABASE_URL (the payments are in its schema).
`;

/** browser-payment's erasure as the command says it. */
export const BROWSER_PAYMENT_PAYER_DATA_ERASE: PayerDataEraseCommand<BrowserPaymentPayerDataErasure> = {
  usage: PAYER_DATA_USAGE,
  counts: [{ key: 'payments', one: 'browser payment' }],
  notFound: 'the merchant has no browser payment on this order',
  refused: 'a browser payment of the order is not over yet (its request and return URL are still needed): run again once its journey has ended or expired',
};

/** The command itself, over browser-payment's erasure (the mains and the tests call it). */
export function runPayerDataCommand(argv: string[], erasure: Pick<EraseBrowserPaymentPayerData, 'execute'>, io: CommandIo): Promise<number> {
  return runPayerDataErase(argv, BROWSER_PAYMENT_PAYER_DATA_ERASE, erasure, io);
}

/** The command's line, or its answer when the line alone answers it: no database needed. */
export function payerDataLine(argv: string[], io: CommandIo) {
  return payerDataEraseLine(argv, io, PAYER_DATA_USAGE);
}
