import { IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { DatabaseConfig, DEFAULT_PERSONAL_DATA_RETENTION_DAYS, Describe, IntVar, PersonalDataRetentionDaysVar, RequestHashKeyVar } from '@gateway/platform';

/** browser-payment's configuration, read once at boot (see docs/operations/configuration.md). */
export class BrowserPaymentConfig extends DatabaseConfig {
  override HTTP_PORT = 8083;

  @Describe('Address of the gateway as payers\' browsers reach it: browser payments\' redirect URLs start with it (the same value as api-edge\'s).')
  @IsString()
  @Matches(/^https?:\/\/[^\s/]+(:\d+)?$/, { message: 'must be an http(s) origin without a path' })
  PUBLIC_BASE_URL = 'http://127.0.0.1:8080';

  @Describe('How long a browser payment\'s redirect token (the payer\'s link) opens its journey, in seconds.')
  @IntVar()
  @IsInt()
  @Min(1)
  @Max(86_400)
  BROWSER_PAYMENT_TOKEN_TTL_SECONDS = 3_600;

  @Describe(
    'How long a CONFIRM_AT_MERCHANT browser payment the payer approved waits for the merchant\'s CONFIRM_BROWSER_PAYMENT, in seconds, counted from the payer\'s return. Once it passed, the expiry sweep releases the payer\'s approval at the provider and ends the payment FAILURE, gatewayCode TIMED_OUT; a later confirm is refused. Default 72 hours (docs/decisions/browser-payment-journey.md, amendment 2026-11-27).',
  )
  @IntVar()
  @IsInt()
  @Min(1)
  @Max(2_592_000)
  BROWSER_PAYMENT_CONFIRM_WINDOW_SECONDS = 259_200;

  @RequestHashKeyVar('Required.')
  REQUEST_HASH_KEY = '';

  @PersonalDataRetentionDaysVar(
    'the order\'s browser payments (their stored request, the provider\'s details of the payer\'s account, the query and fragment of the return URL), counted from the last step of a payment whose journey is over; an order with a journey still under way is left whole until it ends',
    'Run hourly with jitter by each process; replicas share the work, each order stripped in its own transaction on its locked rows and its payments marked so until their next step. Keep it equal to order-transaction\'s.',
  )
  PERSONAL_DATA_RETENTION_DAYS = DEFAULT_PERSONAL_DATA_RETENTION_DAYS;
}
