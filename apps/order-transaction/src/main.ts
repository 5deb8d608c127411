import 'reflect-metadata';
import { ORDER_TRANSACTION_SCHEMA } from '@gateway/order-transaction/data-access';
import { isOperatorCommand, OrderTransactionConfig, OrderTransactionModule, runOperatorCommandMain } from '@gateway/order-transaction/feature';
import { exitOnSignals, runServiceMain } from '@gateway/platform';

const [command, ...args] = process.argv.slice(2);
if (isOperatorCommand(command)) {
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
