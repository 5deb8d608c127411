import { IsOptional, IsString, Matches, MinLength, ValidateIf } from 'class-validator';
import { IsApiPasswordPeppers } from '@gateway/edge/domain';
import { DatabaseConfig, Describe, PlatformConfig } from '@gateway/platform';

const POSTGRES_URL = { message: 'must be a postgres:// URL' };
const POSTGRES = /^postgres(ql)?:\/\//;

/** The admin CLI's merchant commands: the edge's database and the pepper api-edge hashes with. */
export class AdminConfig extends DatabaseConfig {
  @Describe('api-edge\'s API_PASSWORD_PEPPER (the same value): the pepper of `h1$` hashes, and of new ones unless API_PASSWORD_PEPPERS is set.', { secret: true })
  @ValidateIf((c: AdminConfig) => c.API_PASSWORD_PEPPER !== undefined || !c.API_PASSWORD_PEPPERS)
  @IsString()
  @MinLength(32)
  API_PASSWORD_PEPPER: string | undefined = undefined;

  @Describe('api-edge\'s API_PASSWORD_PEPPERS (the same value): new and rotated passwords are hashed under its first pepper.', { secret: true })
  @IsOptional()
  @IsString()
  @IsApiPasswordPeppers()
  API_PASSWORD_PEPPERS = '';

  @Describe(
    'order-transaction\'s WEBHOOK_SECRET_KEYS: the admin CLI seals merchants\' notification secrets with its first key. Needed only to issue or rotate them.',
    { secret: true },
  )
  @IsOptional()
  @IsString()
  WEBHOOK_SECRET_KEYS = '';
}

/**
 * `admin provision-database`, the first step of the migration Job: an administrator URL, and
 * each service's URL whose user name and password become that service's role.
 */
export class ProvisionDatabaseConfig extends PlatformConfig {
  @Describe('Postgres URL of an administrator (creates roles and schemas). Only the migration Job\'s provisioning step has it.', {
    secret: true,
  })
  @IsString()
  @Matches(POSTGRES, POSTGRES_URL)
  DATABASE_ADMIN_URL: string = undefined as unknown as string;

  @Describe("api-edge's DATABASE_URL: its user and password become the role owning schema `edge`.", { secret: true })
  @IsString()
  @Matches(POSTGRES, POSTGRES_URL)
  EDGE_DATABASE_URL: string = undefined as unknown as string;

  @Describe("token-vault's DATABASE_URL: its user and password become the role owning schema `token_vault`.", { secret: true })
  @IsString()
  @Matches(POSTGRES, POSTGRES_URL)
  TOKEN_VAULT_DATABASE_URL: string = undefined as unknown as string;

  @Describe("order-transaction's DATABASE_URL: its user and password become the role owning schema `order_transaction`.", {
    secret: true,
  })
  @IsString()
  @Matches(POSTGRES, POSTGRES_URL)
  ORDER_TRANSACTION_DATABASE_URL: string = undefined as unknown as string;

  @Describe("browser-payment's DATABASE_URL: its user and password become the role owning schema `browser_payment`.", {
    secret: true,
  })
  @IsString()
  @Matches(POSTGRES, POSTGRES_URL)
  BROWSER_PAYMENT_DATABASE_URL: string = undefined as unknown as string;

  @Describe("verification's DATABASE_URL: its user and password become the role owning schema `verification`.", { secret: true })
  @IsString()
  @Matches(POSTGRES, POSTGRES_URL)
  VERIFICATION_DATABASE_URL: string = undefined as unknown as string;
}
