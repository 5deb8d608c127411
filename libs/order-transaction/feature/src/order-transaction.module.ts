import { DynamicModule, Module } from '@nestjs/common';
import { ORDER_TRANSACTION_SCHEMA } from '@gateway/order-transaction/data-access';
import { databaseConnection, ServiceDatabaseModule } from '@gateway/platform';
import { OrderTransactionConfig } from './order-transaction.config';
import { PingNatsController } from './ping.nats-controller';

/** The order ledger: orders, their transactions, totals, status, refunds and replays. */
@Module({})
export class OrderTransactionModule {
  static forRoot(config: OrderTransactionConfig): DynamicModule {
    return {
      module: OrderTransactionModule,
      imports: [
        ServiceDatabaseModule.forRoot({
          service: ORDER_TRANSACTION_SCHEMA,
          connection: databaseConnection(config, 'order-transaction'),
          migrateOnStart: config.DATABASE_MIGRATE_ON_START,
        }),
      ],
      controllers: [PingNatsController],
      providers: [{ provide: OrderTransactionConfig, useValue: config }],
    };
  }
}
