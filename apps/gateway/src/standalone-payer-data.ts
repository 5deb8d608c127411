import { BROWSER_PAYMENT_SCHEMA } from '@gateway/browser-payment/data-access';
import type { BrowserPaymentPayerDataErasure } from '@gateway/browser-payment/domain';
import { BROWSER_PAYMENT_PAYER_DATA_ERASE, browserPaymentPayerDataErasure } from '@gateway/browser-payment/feature';
import { ORDER_TRANSACTION_SCHEMA, PayerDataRepository } from '@gateway/order-transaction/data-access';
import { ErasePayerData, PayerDataErasure } from '@gateway/order-transaction/domain';
import { LEDGER_PAYER_DATA_ERASE } from '@gateway/order-transaction/feature';
import {
  commandLogger,
  ErasureStatus,
  OrderEraser,
  payerDataEraseLine,
  PayerDataEraseCommand,
  runPayerDataErase,
  runStandaloneCommand,
  StandaloneConfig,
  stdio,
  withStandaloneSchema,
} from '@gateway/platform';

/**
 * `payer-data erase` of the standalone profile: the ledger's erasure and browser-payment's
 * (docs/decisions/payer-personal-data.md, item 3), which the distributed profile runs as two
 * commands, each in its service's image, run here together on each order: one process holds
 * both schemas, and an operator who ran only one would leave half of the payer's data.
 */
export type StandalonePayerDataErasure = Omit<PayerDataErasure, 'status'> & Omit<BrowserPaymentPayerDataErasure, 'status'> & { status: ErasureStatus };

const USAGE = `Usage: node dist/apps/gateway/src/main.js payer-data erase <merchantId> <orderId> [<orderId> ...] [--dry-run] [--json]

A payer's personal data in the standalone gateway (docs/decisions/payer-personal-data.md), for a
payer's erasure request the merchant forwards:
  erase <merchantId> <orderId> [...]
      both erasures the distributed profile runs as two commands, on each named order of the
      merchant: browser-payment's first (its payments' stored requests, provider details and
      return URLs' query), then the ledger's (the order's details, every stored operation
      response, every webhook notification, the notification URL's query, the custom data of
      the agreements the order named). An order with a browser payment
      whose journey is not over is refused whole, nothing of it changed: run again once the
      journey has ended or expired. An order without a browser payment (a card order) is
      erased in the ledger. What each erasure strips and keeps: the usage of each service's
      command (node dist/apps/order-transaction/src/main.js payer-data --help, and
      browser-payment's). Prints counts only, never the data. Running it again changes nothing
      (and says so). --dry-run prints what it would change and writes nothing.
      The ledger's transaction, when Postgres ends it as a deadlock victim or for a
      serialization failure (against the webhook dispatcher or the purge), wrote nothing and is
      run again after a short pause, up to 3 times in all. An order whose erasure still fails
      (aborted 3 times, a statement timeout, a delivery still in flight after the wait) is said
      on stderr with the database's reason (FAILED in --json); its browser payments may be
      erased already, its ledger's records not: the command goes on with the others; run it
      again for that order.
      Exit code 0: done (or nothing left to erase); 1: an order the merchant does not have, or
      one refused or failed (the others are erased); 2: usage.

Options:
  --json   machine-readable output
`;

export const STANDALONE_PAYER_DATA_ERASE: PayerDataEraseCommand<StandalonePayerDataErasure> = {
  usage: USAGE,
  counts: [...LEDGER_PAYER_DATA_ERASE.counts, ...BROWSER_PAYMENT_PAYER_DATA_ERASE.counts],
  notFound: LEDGER_PAYER_DATA_ERASE.notFound,
  refused: BROWSER_PAYMENT_PAYER_DATA_ERASE.refused,
};

/**
 * Both erasures of one order, each in its service's own database transaction: browser-payment's
 * first, which refuses an order whose journey is not over (the ledger's is then not run either,
 * so a refused order is left whole), then the ledger's. Not found only when neither has the
 * order: a card order has no browser payment.
 */
export function bothErasures(ledger: OrderEraser<PayerDataErasure>, payments: OrderEraser<BrowserPaymentPayerDataErasure>): OrderEraser<StandalonePayerDataErasure> {
  return {
    async execute(command) {
      const ofPayments = await payments.execute(command);
      if (ofPayments.status === 'REFUSED') {
        return { ...ofPayments, details: false, notificationUrl: false, responses: 0, notifications: 0, agreements: 0 };
      }
      const ofLedger = await ledger.execute(command);
      return { ...ofLedger, payments: ofPayments.payments, unfinished: 0, status: together(ofLedger.status, ofPayments.status) };
    },
  };
}

function together(...statuses: ErasureStatus[]): ErasureStatus {
  const found = statuses.filter((status) => status !== 'NOT_FOUND');
  return found.length === 0 ? 'NOT_FOUND' : (['ERASED', 'WOULD_ERASE'] as const).find((done) => found.includes(done)) ?? 'UNCHANGED';
}

/** The command against the standalone database (started here if the gateway is not running). */
export async function runStandalonePayerDataCommand(argv: string[], standalone: StandaloneConfig): Promise<void> {
  const answered = payerDataEraseLine(argv, stdio, USAGE);
  if (typeof answered === 'number') {
    process.exitCode = answered;
    return;
  }
  await runStandaloneCommand(standalone, (databaseUrl) =>
    withStandaloneSchema(databaseUrl, ORDER_TRANSACTION_SCHEMA, 'payer-data-command', (ledger) =>
      withStandaloneSchema(databaseUrl, BROWSER_PAYMENT_SCHEMA, 'payer-data-command', (payments) =>
        runPayerDataErase(
          argv,
          STANDALONE_PAYER_DATA_ERASE,
          bothErasures(new ErasePayerData(PayerDataRepository.over(ledger), commandLogger('order-transaction')), browserPaymentPayerDataErasure(payments)),
          stdio,
        ),
      ),
    ),
  );
}
