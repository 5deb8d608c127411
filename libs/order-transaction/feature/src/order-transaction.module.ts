import { DynamicModule, Module, Provider } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AcquirerModule } from '@gateway/acquirer';
import { AgreementRepository, LedgerRepository, NotificationOutbox, ORDER_TRANSACTION_SCHEMA, PayerDataRepository, UnknownInquiries } from '@gateway/order-transaction/data-access';
import {
  ABANDONED_RESERVATION_AFTER,
  AbandonedReservations,
  Agreements,
  BeginOperation,
  CaptureOrder,
  CLOCK,
  CardPaymentSideEffects,
  DISPATCH_OPTIONS,
  DispatchNotifications,
  ErasePayerData,
  FindReplay,
  InquireUnknown,
  LEDGER_EVENTS,
  NOTIFICATION_SECRET_KEYS,
  PayByCard,
  ProviderFollowOn,
  RecordOperation,
  REFUND_CALL_TIMEOUT_MS,
  RefundOrder,
  RefundSideEffects,
  ReleaseReservation,
  RetainPayerData,
  ResolveUnknown,
  RetrieveOrder,
  RetrieveTransaction,
  RunFollowOnOperation,
  RunReservedOperation,
  STORED_CARD_ACQUIRER,
  systemClock,
  TimedOutReversal,
  UNKNOWN_INQUIRY_OPTIONS,
  VaultCardCustody,
  VerifyCard,
  VoidTransaction,
  WEBHOOK_SENDER,
  WriteNotification,
} from '@gateway/order-transaction/domain';
import {
  APP_LOGGER,
  AppLogger,
  databaseConnection,
  PersonalDataRetention,
  RequestHasher,
  RETENTION_PASS_ORDER,
  retentionPassOptions,
  ServiceDatabaseModule,
} from '@gateway/platform';
import { ABANDONED_SWEEP_SCHEDULE, AbandonedReservationSweeper, AbandonedSweepSchedule } from './abandoned-reservation-sweeper';
import { CardPaymentsNatsController } from './card-payments.nats-controller';
import { LedgerNatsController } from './ledger.nats-controller';
import { OrderRetrievalNatsController } from './order-retrieval.nats-controller';
import { OrderTransactionConfig } from './order-transaction.config';
import { PingNatsController } from './ping.nats-controller';
import { RefundNatsController } from './refund.nats-controller';
import { UNKNOWN_RECONCILER_INTERVAL, UnknownReconciler } from './unknown-reconciler';
import { HttpsWebhookSender } from './webhooks/https-webhook-sender';
import { DISPATCHER_LOOP, NotificationDispatcher } from './webhooks/notification-dispatcher';
import { loadWebhookSettings } from './webhooks/webhook-settings';

/**
 * The order ledger: orders, their transactions, totals, status, refunds and replays, and the
 * webhook outbox. ORDER_TRANSACTION_MODE chooses what a process runs: the NATS handlers
 * (`serve`), the webhook dispatcher (`dispatch`), or both (`all`).
 */
@Module({})
export class OrderTransactionModule {
  static forRoot(config: OrderTransactionConfig): DynamicModule {
    const serves = config.ORDER_TRANSACTION_MODE !== 'dispatch';
    const dispatches = config.ORDER_TRANSACTION_MODE !== 'serve';
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
      controllers: serves
        ? [PingNatsController, LedgerNatsController, OrderRetrievalNatsController, RefundNatsController, CardPaymentsNatsController]
        : [],
      providers: [
        { provide: OrderTransactionConfig, useValue: config },
        { provide: REFUND_CALL_TIMEOUT_MS, useValue: config.REFUND_CALL_TIMEOUT_MS },
        { provide: ABANDONED_RESERVATION_AFTER, useValue: config.ABANDONED_RESERVATION_AFTER_MS },
        AbandonedReservations,
        { provide: RequestHasher, useValue: loadRequestHasher(config) },
        LedgerRepository,
        AgreementRepository,
        Agreements,
        NotificationOutbox,
        UnknownInquiries,
        WriteNotification,
        { provide: LEDGER_EVENTS, useExisting: WriteNotification },
        BeginOperation,
        RecordOperation,
        RetrieveOrder,
        RetrieveTransaction,
        FindReplay,
        ReleaseReservation,
        ResolveUnknown,
        RefundSideEffects,
        RefundOrder,
        RunReservedOperation,
        RunFollowOnOperation,
        ProviderFollowOn,
        TimedOutReversal,
        CardPaymentSideEffects,
        PayByCard,
        CaptureOrder,
        VoidTransaction,
        { provide: CLOCK, useValue: systemClock },
        { provide: STORED_CARD_ACQUIRER, useClass: VaultCardCustody },
        VerifyCard,
        ...(serves ? reconcilerProviders(config) : []),
        ...(serves ? retentionProviders(config) : []),
        ...(dispatches ? dispatcherProviders(config) : []),
      ],
    };
  }
}

/**
 * The replay hashes' key, checked at start where requests are answered: missing or malformed
 * stops the process (exit code 78). The webhook dispatcher answers none and needs no key.
 */
export function loadRequestHasher(config: OrderTransactionConfig): RequestHasher {
  return config.ORDER_TRANSACTION_MODE === 'dispatch'
    ? RequestHasher.unavailable('ORDER_TRANSACTION_MODE is dispatch: this process answers no requests')
    : RequestHasher.fromConfig(config.REQUEST_HASH_KEY, `when ORDER_TRANSACTION_MODE is ${config.ORDER_TRANSACTION_MODE}`);
}

/** The acquirer inquiries about UNKNOWN outcomes, and the sweep that queues abandoned reservations for them, run where requests are served: those processes call acquirers. */
function reconcilerProviders(config: OrderTransactionConfig): Provider[] {
  return [
    {
      provide: UNKNOWN_INQUIRY_OPTIONS,
      useValue: {
        afterMs: config.UNKNOWN_INQUIRY_AFTER_MS,
        batchSize: config.UNKNOWN_INQUIRY_BATCH_SIZE,
        retryBaseMs: Math.max(config.UNKNOWN_INQUIRY_INTERVAL_MS, 1_000),
      },
    },
    { provide: UNKNOWN_RECONCILER_INTERVAL, useValue: config.UNKNOWN_INQUIRY_INTERVAL_MS },
    InquireUnknown,
    UnknownReconciler,
    {
      provide: ABANDONED_SWEEP_SCHEDULE,
      useValue: { intervalMs: config.ABANDONED_RESERVATION_SWEEP_INTERVAL_MS, inquiryIntervalMs: config.UNKNOWN_INQUIRY_INTERVAL_MS } satisfies AbandonedSweepSchedule,
    },
    AbandonedReservationSweeper,
  ];
}

/**
 * The ledger's pass of the payer personal-data retention (RetainPayerData), run by the process's
 * PersonalDataRetention job, where requests are served (a dispatcher process only delivers).
 *
 * The setting is declared to the job whatever it is, so that a process with the retention off
 * exports 0 rather than nothing (alert GatewayPersonalDataRetentionMismatch); the pass is built
 * only above 0 (the provider is null otherwise: nothing injects it, the job holds it).
 */
function retentionProviders(config: OrderTransactionConfig): Provider[] {
  return [
    {
      provide: RetainPayerData,
      inject: [getDataSourceToken(ORDER_TRANSACTION_SCHEMA.schema), APP_LOGGER, PersonalDataRetention],
      useFactory: (dataSource: DataSource, logger: AppLogger, retention: PersonalDataRetention): RetainPayerData | null => {
        retention.declare('order-transaction', config.PERSONAL_DATA_RETENTION_DAYS);
        if (config.PERSONAL_DATA_RETENTION_DAYS === 0) {
          return null;
        }
        const records = PayerDataRepository.over(dataSource);
        const retain = new RetainPayerData(
          records,
          new ErasePayerData(records, logger),
          retentionPassOptions(config.PERSONAL_DATA_RETENTION_DAYS),
          logger,
        );
        retention.add('order-transaction', RETENTION_PASS_ORDER.ledger, retain);
        return retain;
      },
    },
  ];
}

function dispatcherProviders(config: OrderTransactionConfig): Provider[] {
  const settings = loadWebhookSettings(config);
  return [
    { provide: NOTIFICATION_SECRET_KEYS, useValue: settings.keys },
    { provide: DISPATCH_OPTIONS, useValue: settings.dispatch },
    { provide: WEBHOOK_SENDER, useValue: new HttpsWebhookSender({ timeoutMs: settings.timeoutMs, extraCa: settings.extraCa }) },
    { provide: DISPATCHER_LOOP, useValue: { workers: settings.workers, pollIntervalMs: settings.pollIntervalMs, retentionMs: settings.retentionMs } },
    DispatchNotifications,
    NotificationDispatcher,
  ];
}
