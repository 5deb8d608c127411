import { DynamicModule, Module } from '@nestjs/common';
import { AcquirerModule } from '@gateway/acquirer';
import { VERIFICATION_SCHEMA } from '@gateway/verification/data-access';
import {
  CLOCK,
  OrderLedger,
  STORED_CARD_ACQUIRER,
  systemClock,
  VaultCardCustody,
  VerifyCard,
  VerifyCardForToken,
} from '@gateway/verification/domain';
import { databaseConnection, ServiceDatabaseModule } from '@gateway/platform';
import { VerificationConfig } from './verification.config';
import { PingNatsController } from './ping.nats-controller';
import { VerificationNatsController } from './verification.nats-controller';

/** Card verification against the acquirer, AVS and CSC results, transaction filtering. */
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
        { provide: CLOCK, useValue: systemClock },
        { provide: STORED_CARD_ACQUIRER, useClass: VaultCardCustody },
        OrderLedger,
        VerifyCard,
        VerifyCardForToken,
      ],
    };
  }
}
