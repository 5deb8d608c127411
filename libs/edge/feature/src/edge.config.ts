import { isIP } from 'node:net';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength, ValidateBy, ValidateIf, ValidationOptions } from 'class-validator';
import { IsApiPasswordPeppers, LOCK_FAILURE_ORDER_READ_MS } from '@gateway/edge/domain';
import { DatabaseConfig, DEFAULT_SHUTDOWN_GRACE_MS, Describe, IntVar, MinMilliseconds, RelatedVariable, ShutdownGraceVar, SHUTDOWN_DRAIN_MARGIN_MS } from '@gateway/platform';

/**
 * An admitted request waits at most about the cap divided by the gateway's throughput. 128, as the
 * services' NATS_MAX_IN_FLIGHT: measured open-loop at twice a REFUND's capacity on a quiet host,
 * it gave more successes, a p99 several times lower and no connection left unanswered against 256
 * (docs/decisions/edge-admission.md, amendment). Far above the bench's 50 connections, so normal
 * load is never refused.
 */
export const DEFAULT_EDGE_MAX_IN_FLIGHT = 128;

export const CLIENT_CERT_MODES = ['none', 'request', 'require'] as const;
export type ClientCertMode = (typeof CLIENT_CERT_MODES)[number];

/** api-edge's configuration, read once at boot (see docs/operations/configuration.md). */
export class EdgeConfig extends DatabaseConfig {
  // The platform's variable, checked here against what a stopping edge must finish, and with the
  // platform's own checks again (the override would drop them).
  @ShutdownGraceVar()
  @OutlastsTheEdgesStop()
  override SHUTDOWN_GRACE_MS = DEFAULT_SHUTDOWN_GRACE_MS;

  @Describe('Redis URL for per-order locks, payment sessions and throttling (distributed profile). With a password (`rediss://:<password>@host:6379`), keep it in a Secret.', {
    secret: 'credentials-in-url',
  })
  @IsString()
  @Matches(/^rediss?:\/\//, { message: 'must be a redis:// or rediss:// URL' })
  REDIS_URL = 'redis://127.0.0.1:6379';

  @Describe('Prefix of every Redis key; separates deployments (and test runs) sharing a Redis.')
  @IsString()
  @Matches(/^[A-Za-z0-9:_-]{0,64}$/)
  REDIS_KEY_PREFIX = 'gw:';

  @Describe(
    'Server-side key of the API password hashes that name no pepper (`h1$`, all those made before API_PASSWORD_PEPPERS): the `legacy` pepper. Alone, it also hashes new passwords. Required unless API_PASSWORD_PEPPERS is set; drop it once `admin password-peppers` counts no merchant under `legacy`. Changing it (rather than rotating with API_PASSWORD_PEPPERS) invalidates every password it made.',
    { secret: true },
  )
  @ValidateIf((c: EdgeConfig) => c.API_PASSWORD_PEPPER !== undefined || !c.API_PASSWORD_PEPPERS)
  @IsString()
  @MinLength(32)
  API_PASSWORD_PEPPER: string | undefined = undefined;

  @Describe(
    'Server-side keys of the API password hashes, for rotating the pepper: `<id>:<pepper>` entries (id 1 to 32 characters A-Z a-z 0-9 _ -, pepper at least 32 characters) separated by commas. The first hashes new passwords, and re-hashes a password that authenticates under another; the others only verify. The id `legacy` names the pepper of `h1$` hashes (API_PASSWORD_PEPPER, which then must not be set too).',
    { secret: true },
  )
  @IsOptional()
  @IsString()
  @IsApiPasswordPeppers()
  API_PASSWORD_PEPPERS = '';

  @Describe('Lowest API version accepted in request paths.')
  @IntVar()
  @IsInt()
  @Min(1)
  @Max(1000)
  API_VERSION_MIN = 29;

  @Describe('Highest API version accepted in request paths; at least API_VERSION_MIN.')
  @IntVar()
  @IsInt()
  @Min(1)
  @Max(1000)
  @NotBelowVersionMin()
  API_VERSION_MAX = 100;

  @Describe('How long an order operation waits for the order\'s lock before answering LOCK_FAILURE.')
  @IntVar()
  @IsInt()
  @Min(0)
  @Max(10_000)
  ORDER_LOCK_WAIT_MS = 100;

  @Describe('How long a payer\'s browser-payment step (leaving for or coming back from the provider) waits for the order\'s lock before an error page.')
  @IntVar()
  @IsInt()
  @Min(0)
  @Max(10_000)
  PAYER_LOCK_WAIT_MS = 2_000;

  @Describe('How often each edge replica settles browser payments whose redirect token expired before the payer finished (BROWSER_PAYMENT_TOKEN_TTL_SECONDS): what the provider has from the payer is acted on, a journey that got nowhere fails as TIMED_OUT. 0 turns the sweep off.')
  @IntVar()
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  BROWSER_PAYMENT_SWEEP_INTERVAL_MS = 60_000;

  @Describe('Lease of the per-order lock. Longer than NATS_REQUEST_TIMEOUT_MS + 1000 (what an operation waits on under it: its requests, which share one NATS_REQUEST_TIMEOUT_MS, then a LOCK_FAILURE answer\'s 1 s read of the order), so a live operation never loses its lock.')
  @IntVar()
  @IsInt()
  @MinMilliseconds(1_000)
  @Max(600_000)
  @LongerThanRequestTimeout()
  ORDER_LOCK_TTL_MS = 30_000;

  // At least 2 minutes: a payer has to enter the card in that time, and every lifetime an operator
  // could mean in seconds (up to a day, the maximum) is refused rather than run a thousand times shorter.
  @Describe('Lifetime of a payment session after its creation or last update, in milliseconds; then its data (card included) is deleted.')
  @IntVar()
  @IsInt()
  @MinMilliseconds(120_000)
  @Max(86_400_000)
  SESSION_TTL_MS = 3_600_000;

  // At least 15 minutes: more than any notice an operator could mean in seconds (up to a week, the maximum).
  @Describe('How long after its expiry a session is still answered as expired (a clear 400) rather than unknown, in milliseconds.')
  @IntVar()
  @IsInt()
  @MinMilliseconds(900_000)
  @Max(604_800_000)
  SESSION_EXPIRED_NOTICE_MS = 86_400_000;

  @Describe('How long a merchant profile is cached by each edge replica. A merchant change applies at once on every replica, which drops the profile when the database notifies the change; this bounds a change\'s delay only while a replica is not listening for them (gateway_edge_merchant_changes_listening 0). A new API password is taken at once either way.')
  @IntVar()
  @IsInt()
  @Min(0)
  @Max(600_000)
  MERCHANT_CACHE_TTL_MS = 5_000;

  @Describe('Largest accepted request body, in bytes.')
  @IntVar()
  @IsInt()
  @Min(1_024)
  @Max(10_485_760)
  HTTP_BODY_LIMIT_BYTES = 65_536;

  @Describe('Comma-separated addresses or CIDR ranges of trusted proxies (the ingress): their X-Forwarded-For is believed, and their client certificate header if CLIENT_CERT_HEADER is set. Empty trusts none.')
  @IsOptional()
  @IsString()
  @IsAddressList()
  @RequiredWhen((c) => c.CLIENT_CERT_HEADER !== '', 'is required when CLIENT_CERT_HEADER is set: the header is believed only from these addresses')
  TRUSTED_PROXIES = '';

  @Describe('Deepest nesting of JSON objects and arrays accepted in a request body (the deepest request field is 5 levels).')
  @IntVar()
  @IsInt()
  @Min(6)
  @Max(64)
  HTTP_BODY_MAX_DEPTH = 16;

  @Describe('Longest request URL accepted, in characters; longer ones are answered 400 before anything else.')
  @IntVar()
  @IsInt()
  @Min(512)
  @Max(16_384)
  HTTP_URL_MAX_LENGTH = 4_096;

  @Describe('Largest request line plus headers accepted, in bytes; larger ones are answered 400 by the HTTP parser.')
  @IntVar()
  @IsInt()
  @Min(8_192)
  @Max(65_536)
  HTTP_HEADERS_MAX_BYTES = 16_384;

  @Describe('Longest time a client may take to send its whole request (request line, headers and body), in milliseconds; a slower one is answered 408 and disconnected. The body is read before the credentials are checked, so this bounds what any client can hold open.')
  @IntVar()
  @IsInt()
  @MinMilliseconds(1_000)
  @Max(600_000)
  HTTP_REQUEST_TIMEOUT_MS = 30_000;

  @Describe('Most requests one edge process answers at once (the API and the payer\'s pages; /health and /metrics are not counted). One more is refused at once, before its credentials, throttle or order lock: 503 SERVER_BUSY with Retry-After (a payer gets the busy page), nothing acted on, so the edge\'s queue and memory stay bounded under overload. A request counts once its body is received, until its response is sent or its client leaves. 0: no cap (counted, never refused).')
  @IntVar()
  @IsInt()
  @Min(0)
  @Max(100_000)
  EDGE_MAX_IN_FLIGHT = DEFAULT_EDGE_MAX_IN_FLIGHT;

  @Describe('PEM file of the edge\'s TLS certificate (chain included), e.g. from a mounted Secret. Set with TLS_KEY_FILE to serve HTTPS; empty serves plain HTTP (TLS ends at the ingress).')
  @IsString()
  @RequiredWhen((c) => c.TLS_KEY_FILE !== '' || c.TLS_CLIENT_CERT !== 'none', 'is required with TLS_KEY_FILE, and when TLS_CLIENT_CERT is not none')
  TLS_CERT_FILE = '';

  @Describe('PEM file of the private key of TLS_CERT_FILE.')
  @IsString()
  @RequiredWhen((c) => c.TLS_CERT_FILE !== '', 'is required with TLS_CERT_FILE')
  TLS_KEY_FILE = '';

  @Describe('PEM bundle of the CAs that issue merchants\' client certificates (intermediates included). Required for certificate authentication, over TLS or through CLIENT_CERT_HEADER.')
  @IsString()
  @RequiredWhen((c) => c.TLS_CLIENT_CERT !== 'none' || c.CLIENT_CERT_HEADER !== '', 'is required when TLS_CLIENT_CERT is not none or CLIENT_CERT_HEADER is set')
  TLS_CLIENT_CA_FILE = '';

  @Describe('Client certificates in the TLS handshake: `none`; `request` (a certificate authenticates, Basic still works without one); `require` (every request needs a registered certificate). The handshake never fails over a certificate: refusals are answered 403 with a support code.')
  @IsIn(CLIENT_CERT_MODES)
  TLS_CLIENT_CERT: ClientCertMode = 'none';

  @Describe('Header in which a trusted proxy passes the client certificate it verified (PEM, URL-encoded, as ingress-nginx\'s `ssl-client-cert`). Believed only from TRUSTED_PROXIES; empty: no header is believed.')
  @IsString()
  @Matches(/^([a-z0-9-]{1,64})?$/, { message: 'must be a lower-case header name' })
  CLIENT_CERT_HEADER = '';

  @Describe('Failed password authentications of one merchant, within AUTH_FAILURE_WINDOW_SECONDS, before it is blocked for AUTH_FAILURE_BLOCK_SECONDS (503 SERVER_BUSY, even for the right password).')
  @IntVar()
  @IsInt()
  @Min(1)
  @Max(10_000)
  AUTH_FAILURES_PER_MERCHANT = 10;

  @Describe('Failed authentications from one client address (an IPv6 client: its /64), within the window, before the address is blocked.')
  @IntVar()
  @IsInt()
  @Min(1)
  @Max(100_000)
  AUTH_FAILURES_PER_ADDRESS = 20;

  @Describe('The window failed authentications are counted in, from the first one.')
  @IntVar()
  @IsInt()
  @Min(1)
  @Max(86_400)
  AUTH_FAILURE_WINDOW_SECONDS = 300;

  @Describe('How long a merchant or address stays blocked once it reaches its failure limit.')
  @IntVar()
  @IsInt()
  @Min(1)
  @Max(86_400)
  AUTH_FAILURE_BLOCK_SECONDS = 300;
}

/** A variable that must be set when others are: `when` sees the whole config. */
function RequiredWhen(when: (config: EdgeConfig) => boolean, message: string, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'requiredWhen',
      validator: {
        validate: (value, args) => !when(args!.object as EdgeConfig) || (typeof value === 'string' && value !== ''),
        defaultMessage: () => message,
      },
    },
    options,
  );
}

/**
 * The longest an order operation waits on services while it holds the order's lock. Its requests
 * under the lock (the ledger's replay check and the vault's seals when it takes a session's
 * security code, then the operation) share one budget, NATS_REQUEST_TIMEOUT_MS from the lock's
 * acquisition (DispatchOrderOperation); when the ledger answers ORDER_LOCK_LOST, the LOCK_FAILURE
 * answer's read of the order (LOCK_FAILURE_ORDER_READ_MS) follows before the lock is released. A
 * payer's step and the expired-payment sweep send one request under it. The Redis round trips
 * between (taking the code, giving it back) are not counted.
 */
function longestWaitUnderTheLock(config: EdgeConfig): number {
  return config.NATS_REQUEST_TIMEOUT_MS + LOCK_FAILURE_ORDER_READ_MS;
}

/**
 * The order lock's lease outlasts the longest wait for services under it: shorter, an operation
 * still running would lose its order to the next one (the ledger's fencing token would then
 * refuse the first one's writes, but its acquirer call may already have been made).
 */
function LongerThanRequestTimeout(): PropertyDecorator {
  return RelatedVariable<EdgeConfig>('longerThanRequestTimeout', {
    reads: (config) => [config.NATS_REQUEST_TIMEOUT_MS],
    holds: (lease, config) => lease > longestWaitUnderTheLock(config),
    message: (config) =>
      `must be longer than NATS_REQUEST_TIMEOUT_MS + ${LOCK_FAILURE_ORDER_READ_MS} (${longestWaitUnderTheLock(config)}): an operation's requests under the order's lock share ` +
      `one NATS_REQUEST_TIMEOUT_MS, and a LOCK_FAILURE answer may then read the order for up to ${LOCK_FAILURE_ORDER_READ_MS} before the lock is released`,
  });
}

/** A payer's step: the redirect token resolved to its order, then, under the order's lock, the step. */
const PAYER_STEP_REQUESTS_IN_TURN = 2;

/**
 * The longest an HTTP request keeps the edge busy, from its waits in turn (the database and Redis
 * round trips between them are not counted). An order operation waits for the order's lock
 * (ORDER_LOCK_WAIT_MS), then what it waits on under it (longestWaitUnderTheLock: its requests'
 * one budget, and the LOCK_FAILURE answer's read). A payer's step waits PAYER_LOCK_WAIT_MS for the
 * lock between its two requests (the redirect token resolved to its order, then the step). Every
 * other request waits on one budget: a token save's seals and save share one, as a session
 * update's seals do; a read sends one request.
 */
export function longestEdgeRequest(config: EdgeConfig): number {
  const orderOperation = config.ORDER_LOCK_WAIT_MS + longestWaitUnderTheLock(config);
  const payerStep = config.PAYER_LOCK_WAIT_MS + PAYER_STEP_REQUESTS_IN_TURN * config.NATS_REQUEST_TIMEOUT_MS;
  return Math.max(orderOperation, payerStep);
}

/**
 * How long after the edge takes an order operation's HTTP request its service may still begin the
 * operation (a card operation's reservation, then its acquirer call): the wait for the order's
 * lock (ORDER_LOCK_WAIT_MS), then the one budget the requests under it share
 * (NATS_REQUEST_TIMEOUT_MS from the lock's acquisition), whose end is the deadline the operation
 * carries. The replay check and the seals may spend most of that budget first, so the operation
 * may be sent just before it; the service refuses it unbegun past it (the ledger checks it by the
 * reservation's write). What the service begins then runs on after the edge stops waiting: a
 * process holding both (the standalone gateway) counts its longest operation from here. The
 * session's read and the Redis round trips before the lock are not counted.
 */
export function latestOrderOperationStart(config: EdgeConfig): number {
  return config.ORDER_LOCK_WAIT_MS + config.NATS_REQUEST_TIMEOUT_MS;
}

/**
 * How long the edge's background job takes to stop: the expired-payment sweep takes no next
 * payment and ends the request in progress (a settlement, or the page of due payments before it),
 * up to NATS_REQUEST_TIMEOUT_MS. Nothing where the sweep is off.
 */
export function edgeJobsStop(config: EdgeConfig): number {
  return config.BROWSER_PAYMENT_SWEEP_INTERVAL_MS > 0 ? config.NATS_REQUEST_TIMEOUT_MS : 0;
}

/**
 * The shortest SHUTDOWN_GRACE_MS with which a stopping edge cuts off none of its work. On SIGTERM
 * the grace timer starts; Nest first runs the shutdown hooks, among them BackgroundJobs', which
 * stops the sweep (edgeJobsStop), while the HTTP server still takes requests (Fastify answers
 * 503 only once it closes); only then does the HTTP server stop taking them and wait for those
 * in flight, one taken just before needing the whole longest request (longestEdgeRequest); then
 * the NATS, Redis and database connections drain. Cut off, a request's answer is lost (the
 * merchant retries, and the operation may have been done) and its order stays locked until the
 * lease lapses.
 */
export function edgeShutdownGraceNeeded(config: EdgeConfig): number {
  return edgeJobsStop(config) + longestEdgeRequest(config) + SHUTDOWN_DRAIN_MARGIN_MS;
}

function OutlastsTheEdgesStop(): PropertyDecorator {
  return RelatedVariable<EdgeConfig>('outlastsTheEdgesStop', {
    reads: (config) => [config.NATS_REQUEST_TIMEOUT_MS, config.ORDER_LOCK_WAIT_MS, config.PAYER_LOCK_WAIT_MS, config.BROWSER_PAYMENT_SWEEP_INTERVAL_MS],
    holds: (grace, config) => grace >= edgeShutdownGraceNeeded(config),
    message: (config) =>
      `must be at least ${edgeShutdownGraceNeeded(config)}: a stopping edge first ends the expired-payment settlement in progress (NATS_REQUEST_TIMEOUT_MS, unless BROWSER_PAYMENT_SWEEP_INTERVAL_MS is 0), ` +
      `then finishes the HTTP requests in flight, the longest ${longestEdgeRequest(config)} (an order operation: ORDER_LOCK_WAIT_MS + NATS_REQUEST_TIMEOUT_MS, ` +
      `which its requests under the lock share, + ${LOCK_FAILURE_ORDER_READ_MS} for a LOCK_FAILURE answer's read; ` +
      `a payer's step: PAYER_LOCK_WAIT_MS + ${PAYER_STEP_REQUESTS_IN_TURN} × NATS_REQUEST_TIMEOUT_MS), then drains (${SHUTDOWN_DRAIN_MARGIN_MS})`,
  });
}

/** A range with its ends swapped would answer every request 400 for its version, the process up and ready. */
function NotBelowVersionMin(): PropertyDecorator {
  return RelatedVariable<EdgeConfig>('notBelowVersionMin', {
    reads: (config) => [config.API_VERSION_MIN],
    holds: (max, config) => max >= config.API_VERSION_MIN,
    message: (config) => `must be at least API_VERSION_MIN (${config.API_VERSION_MIN}): below it no version is accepted, and every request is answered 400`,
  });
}

/** Comma-separated IPv4/IPv6 addresses or CIDR ranges. */
function IsAddressList(): PropertyDecorator {
  return ValidateBy({
    name: 'isAddressList',
    validator: {
      validate: (value) => typeof value === 'string' && parseAddressList(value) !== null,
      defaultMessage: () => 'must be comma-separated IP addresses or CIDR ranges',
    },
  });
}

export interface AddressRange {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

export function parseAddressList(list: string): AddressRange[] | null {
  const ranges: AddressRange[] = [];
  for (const entry of list.split(',').map((e) => e.trim()).filter(Boolean)) {
    const [address, prefixText] = entry.split('/');
    const version = isIP(address);
    const max = version === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? max : /^[0-9]{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
    if (version === 0 || !(prefix >= 0 && prefix <= max)) {
      return null;
    }
    ranges.push({ address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' });
  }
  return ranges;
}
