import { IsBoolean, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { BoolVar, DatabaseConfig, Describe, IntVar } from '@gateway/platform';
import { X9_24_SAMPLE_BDK_HEX } from '@gateway/token-vault/domain';

/** token-vault's configuration, read once at boot (see docs/operations/configuration.md). */
export class TokenVaultConfig extends DatabaseConfig {
  override HTTP_PORT = 8081;

  @Describe(
    'Master keys that wrap the vault\'s data keys: `<id>:<base64 of 32 bytes>` entries separated by commas. The first wraps new and re-wrapped data keys, the others only unwrap (master key rotation). Set this or VAULT_MASTER_KEYS_FILE.',
    { secret: true },
  )
  @IsOptional()
  @IsString()
  VAULT_MASTER_KEYS = '';

  @Describe('File holding VAULT_MASTER_KEYS (a mounted Secret; entries separated by commas or newlines), read at start.')
  @IsOptional()
  @IsString()
  VAULT_MASTER_KEYS_FILE = '';

  @Describe(
    'Key of the keyed fingerprints (HMAC-SHA256) behind the uniqueness rules: base64 of 32 bytes, separate from the master keys (the vault refuses to start when it is the current one). Changing it on a vault holding tokens breaks Unique Card lookups. Set this or VAULT_FINGERPRINT_KEY_FILE.',
    { secret: true },
  )
  @IsOptional()
  @IsString()
  VAULT_FINGERPRINT_KEY = '';

  @Describe('File holding VAULT_FINGERPRINT_KEY (a mounted Secret), read at start.')
  @IsOptional()
  @IsString()
  VAULT_FINGERPRINT_KEY_FILE = '';

  @Describe('How often each replica re-reads the data keys, so a rotation reaches all of them; retired keys are destroyed only after twice this.')
  @IntVar()
  @IsInt()
  @Min(1_000)
  @Max(3_600_000)
  VAULT_KEY_REFRESH_MS = 30_000;

  @Describe('Tokens re-encrypted per transaction by `rotate-keys`: each batch holds its row locks only briefly.')
  @IntVar()
  @IsInt()
  @Min(1)
  @Max(10_000)
  VAULT_REENCRYPT_BATCH_SIZE = 200;

  @Describe(
    'Base derivation key (hex, 16/24/32 bytes) of the p2pe TEST scheme, applied to test merchants only (docs/p2pe-test-scheme.md). The default is the published ANSI X9.24 sample key.',
    { secret: true },
  )
  @IsString()
  VAULT_P2PE_TEST_BDK = X9_24_SAMPLE_BDK_HEX;

  @Describe('Test merchants\' scheme tokenization and push provisioning go to the built-in token service provider simulator.')
  @BoolVar()
  @IsBoolean()
  VAULT_TSP_SIMULATOR = true;
}
