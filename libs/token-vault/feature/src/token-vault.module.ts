import { DynamicModule, Module } from '@nestjs/common';
import { AcquirerModule } from '@gateway/acquirer';
import { VaultKeys } from '@gateway/crypto';
import { DataKeyRepository, TOKEN_VAULT_SCHEMA, TokenRepository } from '@gateway/token-vault/data-access';
import {
  ACQUIRER_VERIFIER,
  AcquirerCardVerifier,
  BuiltInTokenServiceProviders,
  CallAcquirer,
  CARD_VERIFICATION_SERVICE,
  CardVerification,
  DeleteToken,
  FINGERPRINTER,
  RetrieveToken,
  SaveToken,
  RevealSessionCard,
  SealSessionCard,
  SessionCardSealing,
  TEST_P2PE_SCHEME,
  TOKEN_SERVICE_PROVIDERS,
  TOKEN_STORE,
  TokenSealing,
  VAULT_KEYS,
} from '@gateway/token-vault/domain';
import { databaseConnection, ServiceDatabaseModule } from '@gateway/platform';
import { TokenVaultConfig } from './token-vault.config';
import { PingNatsController } from './ping.nats-controller';
import { CardCustodyNatsController } from './card-custody.nats-controller';
import { TokensNatsController } from './tokens.nats-controller';
import { VerificationServiceClient } from './verification-service.client';
import { VaultKeysLifecycle } from './vault-keys.lifecycle';
import { loadVaultSecrets } from './vault-secrets';

/** The card and account vault: tokens, encrypted account identifiers, keyed fingerprints. */
@Module({})
export class TokenVaultModule {
  static forRoot(config: TokenVaultConfig): DynamicModule {
    const secrets = loadVaultSecrets(config);
    return {
      module: TokenVaultModule,
      imports: [
        ServiceDatabaseModule.forRoot({
          service: TOKEN_VAULT_SCHEMA,
          connection: databaseConnection(config, 'token-vault'),
          migrateOnStart: config.DATABASE_MIGRATE_ON_START,
        }),
        // Card custody: the vault makes the acquirer calls whose card only it may open.
        AcquirerModule,
      ],
      controllers: [PingNatsController, TokensNatsController, CardCustodyNatsController],
      providers: [
        { provide: TokenVaultConfig, useValue: config },
        DataKeyRepository,
        TokenRepository,
        { provide: TOKEN_STORE, useExisting: TokenRepository },
        {
          provide: VAULT_KEYS,
          useFactory: (store: DataKeyRepository) =>
            new VaultKeys(store, secrets.masterKeys, { refreshIntervalMs: config.VAULT_KEY_REFRESH_MS }),
          inject: [DataKeyRepository],
        },
        { provide: FINGERPRINTER, useValue: secrets.fingerprinter },
        { provide: TEST_P2PE_SCHEME, useValue: secrets.p2pe },
        { provide: TOKEN_SERVICE_PROVIDERS, useValue: new BuiltInTokenServiceProviders(config.VAULT_TSP_SIMULATOR, secrets.fingerprinter) },
        { provide: CARD_VERIFICATION_SERVICE, useClass: VerificationServiceClient },
        { provide: ACQUIRER_VERIFIER, useClass: AcquirerCardVerifier },
        VaultKeysLifecycle,
        TokenSealing,
        CardVerification,
        SaveToken,
        RetrieveToken,
        DeleteToken,
        SessionCardSealing,
        SealSessionCard,
        RevealSessionCard,
        CallAcquirer,
      ],
    };
  }
}
