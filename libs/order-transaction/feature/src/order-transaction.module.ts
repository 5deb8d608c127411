import { DynamicModule, Module } from '@nestjs/common';
import { LedgerRepository, ORDER_TRANSACTION_SCHEMA } from '@gateway/order-transaction/data-access';
import {
  BeginOperation,
  LEDGER_EVENTS,
  NoLedgerEvents,
  RecordOperation,
  RetrieveOrder,
  RetrieveTransaction,
} from '@gateway/order-transaction/domain';
import { databaseConnection, ServiceDatabaseModule } from '@gateway/platform';
import { LedgerNatsController } from './ledger.nats-controller';
import { OrderRetrievalNatsController } from './order-retrieval.nats-controller';
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
      controllers: [PingNatsController, LedgerNatsController, OrderRetrievalNatsController],
      providers: [
        { provide: OrderTransactionConfig, useValue: config },
        // The webhook outbox (issue 8) replaces this with its writer; see ledger-events.ts.
        { provide: LEDGER_EVENTS, useClass: NoLedgerEvents },
        LedgerRepository,
        BeginOperation,
        RecordOperation,
        RetrieveOrder,
        RetrieveTransaction,
      ],
    };
  }
}
