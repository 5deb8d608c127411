import { DynamicModule, Module } from '@nestjs/common';
import {
  BROWSER_PAYMENT_SCHEMA,
  BrowserPaymentRepository,
  SimulatedProviderRepository,
} from '@gateway/browser-payment/data-access';
import {
  BROWSER_PAYMENT_OPTIONS,
  BrowserPaymentLedger,
  CaptureAtProvider,
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
  ReturnFromProvider,
  SettleExpiredPayments,
  ShowProviderPage,
  SIMULATOR_STORE,
  SYSTEM_CLOCK,
  VoidAtProvider,
} from '@gateway/browser-payment/domain';
import { databaseConnection, RequestHasher, ServiceDatabaseModule } from '@gateway/platform';
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
          useValue: { publicBaseUrl: config.PUBLIC_BASE_URL, tokenTtlMs: config.BROWSER_PAYMENT_TOKEN_TTL_SECONDS * 1_000 },
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
      ],
    };
  }
}
