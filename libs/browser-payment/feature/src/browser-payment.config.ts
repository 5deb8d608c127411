import { Transform } from 'class-transformer';
import { IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { DatabaseConfig, DEFAULT_PERSONAL_DATA_RETENTION_DAYS, Describe, IntVar, PersonalDataRetentionDaysVar, RequestHashKeyVar } from '@gateway/platform';

/**
 * An absolute http(s) origin: a scheme, a host name or IP address (IPv6 in brackets) and an
 * optional port, nothing after (its one trailing `/` is dropped first). Redirect URLs are this
 * followed by `/bpui/...`: under a path they would be served nowhere, and a query or fragment
 * would swallow the path.
 */
const PUBLIC_BASE_URL_PATTERN = /^https?:\/\/([a-z0-9]([a-z0-9.-]*[a-z0-9])?|\[[0-9a-f:.]+\])(:[0-9]{1,5})?$/i;

/** browser-payment's configuration, read once at boot (see docs/operations/configuration.md). */
export class BrowserPaymentConfig extends DatabaseConfig {
  override HTTP_PORT = 8083;

  // No default: the fixed `http://127.0.0.1:8080` it had let a deployment that forgot it start,
  // ready, and hand merchants redirect URLs no payer's browser can open. The standalone gateway
  // sets it, unless the operator did, to where it serves (apps/gateway, withStandalonePublicBaseUrl).
  @Describe(
    'Address of the gateway as payers\' browsers reach it (the ingress\'s public address, e.g. `https://pay.example.com`): browser payments\' redirect URLs start with it; a trailing `/` is dropped. Required: browser-payment refuses to start without it. The standalone gateway, unset, takes the address it serves on.',
  )
  // Its one trailing `/` dropped first: `https://pay.example.com/` would make `//bpui/...` URLs.
  @Transform(({ value }) => (typeof value === 'string' ? value.replace(/\/$/, '') : value))
  @IsString()
  @Matches(PUBLIC_BASE_URL_PATTERN, { message: 'must be an http(s) origin such as https://pay.example.com: no path, query, fragment or credentials' })
  PUBLIC_BASE_URL: string = undefined as unknown as string;

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
