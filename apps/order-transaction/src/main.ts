import 'reflect-metadata';
import { ORDER_TRANSACTION_SCHEMA } from '@gateway/order-transaction/data-access';
import { isOperatorCommand, OPERATOR_COMMAND_USAGE, OrderTransactionConfig, OrderTransactionModule, runOperatorCommandMain } from '@gateway/order-transaction/feature';
import { answerEntryPointLine, exitOnSignals, runServiceMain, stdio } from '@gateway/platform';

const USAGE = {
  command: 'node dist/apps/order-transaction/src/main.js',
  what:
    'order-transaction: the order ledger (orders, their transactions and totals, refunds, the webhook outbox), answering requests ' +
    'over NATS; with ORDER_TRANSACTION_MODE=dispatch, the webhook dispatcher.',
  settings: 'docs/operations/configuration.md (Every app, Apps with a database, order-transaction)',
  commands: [
    { name: 'migrate', rest: '', what: "apply the ledger's database migrations, then exit (the migration Job)", readsItsLine: false },
    ...OPERATOR_COMMAND_USAGE,
  ],
};

const [command, ...args] = process.argv.slice(2);
// `--help`, or an argument it does not take, is answered before anything is read or connected.
const answered = answerEntryPointLine(process.argv.slice(2), USAGE, stdio);
if (answered !== undefined) {
  process.exitCode = answered;
} else if (isOperatorCommand(command)) {
  // `notifications ...`, `transactions ...`: an operator's command, then exit. Stopped halfway
  // (its pod deleted, Ctrl-C), it exits 143/130, as its container's PID 1 too.
  exitOnSignals('command');
  void runOperatorCommandMain(command, args);
} else {
  void runServiceMain({
    name: 'order-transaction',
    configClass: OrderTransactionConfig,
    schema: ORDER_TRANSACTION_SCHEMA,
    featureModule: (config) => OrderTransactionModule.forRoot(config),
    // The webhook dispatcher's Deployment answers no subject (docs/operations, The webhook dispatcher).
    servesMessages: (config) => config.ORDER_TRANSACTION_MODE !== 'dispatch',
  });
}
