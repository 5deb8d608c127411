import { DynamicModule, Module } from '@nestjs/common';
import { AcquirerModule } from '@gateway/acquirer';
import { LedgerRepository, ORDER_TRANSACTION_SCHEMA } from '@gateway/order-transaction/data-access';
import {
  BeginOperation,
  LEDGER_EVENTS,
  NoLedgerEvents,
  RecordOperation,
  REFUND_CALL_TIMEOUT_MS,
  RefundOrder,
  RefundSideEffects,
  ReleaseReservation,
  RetrieveOrder,
  RetrieveTransaction,
} from '@gateway/order-transaction/domain';
import { databaseConnection, ServiceDatabaseModule } from '@gateway/platform';
import { LedgerNatsController } from './ledger.nats-controller';
import { OrderRetrievalNatsController } from './order-retrieval.nats-controller';
import { OrderTransactionConfig } from './order-transaction.config';
import { PingNatsController } from './ping.nats-controller';
import { RefundNatsController } from './refund.nats-controller';

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
        AcquirerModule,
      ],
      controllers: [PingNatsController, LedgerNatsController, OrderRetrievalNatsController, RefundNatsController],
      providers: [
        { provide: OrderTransactionConfig, useValue: config },
        { provide: REFUND_CALL_TIMEOUT_MS, useValue: config.REFUND_CALL_TIMEOUT_MS },
        // The webhook outbox (issue 8) replaces this with its writer; see ledger-events.ts.
        { provide: LEDGER_EVENTS, useClass: NoLedgerEvents },
        LedgerRepository,
        BeginOperation,
        RecordOperation,
        RetrieveOrder,
        RetrieveTransaction,
        ReleaseReservation,
        RefundSideEffects,
        RefundOrder,
      ],
    };
  }
}
