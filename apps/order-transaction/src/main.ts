import 'reflect-metadata';
import { ORDER_TRANSACTION_SCHEMA } from '@gateway/order-transaction/data-access';
import { OrderTransactionConfig, OrderTransactionModule } from '@gateway/order-transaction/feature';
import { runServiceMain } from '@gateway/platform';

void runServiceMain({
  name: 'order-transaction',
  configClass: OrderTransactionConfig,
  schema: ORDER_TRANSACTION_SCHEMA,
  featureModule: (config) => OrderTransactionModule.forRoot(config),
});
