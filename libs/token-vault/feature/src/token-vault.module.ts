import { DynamicModule, Module } from '@nestjs/common';
import { TOKEN_VAULT_SCHEMA } from '@gateway/token-vault/data-access';
import { databaseConnection, ServiceDatabaseModule } from '@gateway/platform';
import { TokenVaultConfig } from './token-vault.config';
import { PingNatsController } from './ping.nats-controller';

/** The card and account vault: tokens, encrypted account identifiers, keyed fingerprints. */
@Module({})
export class TokenVaultModule {
  static forRoot(config: TokenVaultConfig): DynamicModule {
    return {
      module: TokenVaultModule,
      imports: [
        ServiceDatabaseModule.forRoot({
          service: TOKEN_VAULT_SCHEMA,
          connection: databaseConnection(config, 'token-vault'),
          migrateOnStart: config.DATABASE_MIGRATE_ON_START,
        }),
      ],
      controllers: [PingNatsController],
      providers: [{ provide: TokenVaultConfig, useValue: config }],
    };
  }
}
