import 'reflect-metadata';
import { ORDER_TRANSACTION_SCHEMA } from '@gateway/order-transaction/data-access';
import { OrderTransactionConfig, OrderTransactionModule, runNotificationsMain } from '@gateway/order-transaction/feature';
import { runServiceMain } from '@gateway/platform';

if (process.argv[2] === 'notifications') {
  void runNotificationsMain(process.argv.slice(3));
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
