import { DynamicModule, Module } from '@nestjs/common';
import { AcquirerModule } from '@gateway/acquirer';
import { VERIFICATION_SCHEMA } from '@gateway/verification/data-access';
import { VerifyCardForToken } from '@gateway/verification/domain';
import { databaseConnection, ServiceDatabaseModule } from '@gateway/platform';
import { VerificationConfig } from './verification.config';
import { PingNatsController } from './ping.nats-controller';
import { VerificationNatsController } from './verification.nats-controller';

/**
 * Card verification at the acquirer for cards that are not an order's: the token vault's
 * ACQUIRER verification strategy. VERIFY on an order runs in order-transaction, next to the
 * ledger it begins and records with (docs/decisions/verify-in-order-transaction.md).
 */
@Module({})
export class VerificationModule {
  static forRoot(config: VerificationConfig): DynamicModule {
    return {
      module: VerificationModule,
      imports: [
        ServiceDatabaseModule.forRoot({
          service: VERIFICATION_SCHEMA,
          connection: databaseConnection(config, 'verification'),
          migrateOnStart: config.DATABASE_MIGRATE_ON_START,
        }),
        AcquirerModule,
      ],
      controllers: [PingNatsController, VerificationNatsController],
      providers: [
        { provide: VerificationConfig, useValue: config },
        VerifyCardForToken,
      ],
    };
  }
}
