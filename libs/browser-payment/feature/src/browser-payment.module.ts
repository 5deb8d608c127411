import { DynamicModule, Module, Provider } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import {
  BROWSER_PAYMENT_SCHEMA,
  BrowserPaymentPayerDataRepository,
  BrowserPaymentRepository,
  SimulatedProviderRepository,
} from '@gateway/browser-payment/data-access';
import {
  BROWSER_PAYMENT_OPTIONS,
  BrowserPaymentLedger,
  CaptureAtProvider,
  EraseBrowserPaymentPayerData,
  CLOCK,
  ConfirmBrowserPayment,
  InitiateBrowserPayment,
  PAYMENT_STORE,
  PayerJourneys,
  PaymentSteps,
  ProviderAdapters,
  RecordPayerDecision,
  RefundAtProvider,
  ResolvePayerToken,
  RetainBrowserPaymentPayerData,
  ReturnFromProvider,
  SettleExpiredPayments,
  ShowProviderPage,
  SIMULATOR_STORE,
  SYSTEM_CLOCK,
  VoidAtProvider,
} from '@gateway/browser-payment/domain';
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
import { BrowserPaymentConfig } from './browser-payment.config';
import { BrowserPaymentsNatsController } from './browser-payments.nats-controller';
import { ExpiredPaymentsNatsController } from './expired-payments.nats-controller';
import { PayerJourneyNatsController } from './payer-journey.nats-controller';
import { PingNatsController } from './ping.nats-controller';
import { ProviderCapturesNatsController } from './provider-captures.nats-controller';
import { ProviderRefundsNatsController } from './provider-refunds.nats-controller';

/** Browser payments at external providers: initiate, payer redirect and return, confirm, provider refunds, captures and voids, expired journeys. */
@Module({})
export class BrowserPaymentModule {
  static forRoot(config: BrowserPaymentConfig): DynamicModule {
    return {
      module: BrowserPaymentModule,
      imports: [
        ServiceDatabaseModule.forRoot({
          service: BROWSER_PAYMENT_SCHEMA,
          connection: databaseConnection(config, 'browser-payment'),
          migrateOnStart: config.DATABASE_MIGRATE_ON_START,
        }),
      ],
      controllers: [
        PingNatsController,
        BrowserPaymentsNatsController,
        PayerJourneyNatsController,
        ProviderRefundsNatsController,
        ProviderCapturesNatsController,
        ExpiredPaymentsNatsController,
      ],
      providers: [
        { provide: BrowserPaymentConfig, useValue: config },
        {
          provide: BROWSER_PAYMENT_OPTIONS,
          useValue: {
            publicBaseUrl: config.PUBLIC_BASE_URL,
            tokenTtlMs: config.BROWSER_PAYMENT_TOKEN_TTL_SECONDS * 1_000,
            confirmWindowMs: config.BROWSER_PAYMENT_CONFIRM_WINDOW_SECONDS * 1_000,
          },
        },
        { provide: CLOCK, useValue: SYSTEM_CLOCK },
        // The replay hashes' key, checked at start: missing or malformed stops the service.
        { provide: RequestHasher, useValue: RequestHasher.fromConfig(config.REQUEST_HASH_KEY) },
        BrowserPaymentRepository,
        SimulatedProviderRepository,
        { provide: PAYMENT_STORE, useExisting: BrowserPaymentRepository },
        { provide: SIMULATOR_STORE, useExisting: SimulatedProviderRepository },
        ProviderAdapters,
        BrowserPaymentLedger,
        PaymentSteps,
        PayerJourneys,
        InitiateBrowserPayment,
        ConfirmBrowserPayment,
        ResolvePayerToken,
        ShowProviderPage,
        RecordPayerDecision,
        ReturnFromProvider,
        RefundAtProvider,
        CaptureAtProvider,
        VoidAtProvider,
        SettleExpiredPayments,
        ...retentionProviders(config),
      ],
    };
  }
}

/**
 * browser-payment's pass of the payer personal-data retention (RetainBrowserPaymentPayerData),
 * run by the process's PersonalDataRetention job; in the standalone gateway before the ledger's.
 *
 * The setting is declared to the job whatever it is, so that a process with the retention off
 * exports 0 rather than nothing (alert GatewayPersonalDataRetentionMismatch); the pass is built
 * only above 0 (the provider is null otherwise: nothing injects it, the job holds it).
 */
function retentionProviders(config: BrowserPaymentConfig): Provider[] {
  return [
    {
      provide: RetainBrowserPaymentPayerData,
      inject: [getDataSourceToken(BROWSER_PAYMENT_SCHEMA.schema), APP_LOGGER, PersonalDataRetention],
      useFactory: (dataSource: DataSource, logger: AppLogger, retention: PersonalDataRetention): RetainBrowserPaymentPayerData | null => {
        retention.declare('browser-payment', config.PERSONAL_DATA_RETENTION_DAYS);
        if (config.PERSONAL_DATA_RETENTION_DAYS === 0) {
          return null;
        }
        const records = BrowserPaymentPayerDataRepository.over(dataSource);
        const retain = new RetainBrowserPaymentPayerData(
          records,
          new EraseBrowserPaymentPayerData(records, logger),
          retentionPassOptions(config.PERSONAL_DATA_RETENTION_DAYS),
          logger,
        );
        retention.add('browser-payment', RETENTION_PASS_ORDER.browserPayment, retain);
        return retain;
      },
    },
  ];
}
