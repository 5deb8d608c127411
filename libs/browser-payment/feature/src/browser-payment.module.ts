import { DynamicModule, Module } from '@nestjs/common';
import { BROWSER_PAYMENT_SCHEMA } from '@gateway/browser-payment/data-access';
import { databaseConnection, ServiceDatabaseModule } from '@gateway/platform';
import { BrowserPaymentConfig } from './browser-payment.config';
import { PingNatsController } from './ping.nats-controller';

/** Browser payments at external providers: initiate, payer redirect and return, confirm. */
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
      controllers: [PingNatsController],
      providers: [{ provide: BrowserPaymentConfig, useValue: config }],
    };
  }
}
