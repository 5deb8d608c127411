import { IsBoolean, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';
import { DEFAULT_MIGRATION_LOCK_TIMEOUT_MS } from '../database/migrate';
import { BoolVar, Describe, IntVar, MinMilliseconds, RelatedVariable } from './config-decorators';

export const PROFILES = ['distributed', 'standalone'] as const;
export type Profile = (typeof PROFILES)[number];
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Measured (docs/decisions/load-shedding.md, amendment "the cap sized by measurement"): each
 * handler in flight holds about 20-25 KB of live heap, so 128 keep a service near 55 MB of its
 * 128 MB old space, where about 3,000 run it out. At the cap nearly every handler queues for one
 * of the DATABASE_POOL_SIZE connections, so the cap over the pool sets how long an admitted
 * request waits (about 12 database turns); 2.5 times what the bench's 50 connections put in flight.
 */
export const DEFAULT_NATS_MAX_IN_FLIGHT = 128;

/**
 * The largest reply a service sends (in parts over NATS when over max_payload, whole on the
 * in-process bus). A GET of an order carries every transaction's stored response (about 1 KB each,
 * tens of KB with large custom fields): 4 MiB holds a few thousand. Bounded by the edge's memory,
 * not NATS: the edge parses a reply and renders it again (keys sorted), several times the
 * reply's size in heap while it does (measured: a 5.4 MiB order, 34 MB; a 21.6 MiB one, 104 MB,
 * more than a 128 MB old space holds beside the edge's own 50 MB)
 * (docs/decisions/subject-prefix-and-in-process-bus.md, amendment on replies in parts).
 */
export const DEFAULT_NATS_MAX_REPLY_BYTES = 4 * 1024 * 1024;

/**
 * What a stopping ledger needs at the longest with the defaults, 50 s (order-transaction's
 * shutdownGraceNeeded: an inquiry in progress, then a card operation whose completion is retried
 * while the database is away, then the drain), above what a stopping edge needs, 34 s (api-edge's
 * edgeShutdownGraceNeeded: the expired-payment settlement in progress, then a payer's step, two
 * requests about the order's lock, then the drain); each refuses to start with less. The same for
 * every distributed app, so a process started without the variable (a plain `docker run`) cuts
 * nothing off; one that has finished exits sooner. The standalone gateway (`npm start`) needs more,
 * 60.1 s (a card operation its edge begins late in an order operation's budget): unset, its grace
 * is what it needs with its settings (apps/gateway, withStandaloneShutdownGrace), not this.
 */
export const DEFAULT_SHUTDOWN_GRACE_MS = 50_000;

/**
 * The longest SHUTDOWN_GRACE_MS accepted: above the longest stop any accepted setting makes a
 * process need, so a check never asks for a grace this refuses. That is the standalone gateway's,
 * 402 s with NATS_REQUEST_TIMEOUT_MS, the lock waits and REFUND_CALL_TIMEOUT_MS at their maxima
 * (the settlement 120 s + a card operation begun 130 s after its HTTP request and running 150 s +
 * 2 s); api-edge's is 372 s. Under the 10 min after which `transactions resolve` takes a
 * reservation as abandoned (ABANDONED_RESERVATION_MS).
 */
export const MAX_SHUTDOWN_GRACE_MS = 420_000;

/**
 * SHUTDOWN_GRACE_MS's own checks: a whole number of milliseconds, 0 to MAX_SHUTDOWN_GRACE_MS. An
 * app that also checks it against what its own stop needs re-declares the property with that
 * check, and class-validator then drops every constraint the platform declared on it (it keeps
 * the subclass's alone), so such an override applies these again.
 */
export function ShutdownGraceVar(): PropertyDecorator {
  return (target, key) => {
    for (const decorate of [IntVar(), IsInt(), Min(0), Max(MAX_SHUTDOWN_GRACE_MS)]) {
      decorate(target, key);
    }
  };
}

/**
 * After the last handler has answered, a stopping process still flushes its replies and drains
 * its NATS connection (a round trip to the server), then closes its HTTP server and its pool.
 */
export const SHUTDOWN_DRAIN_MARGIN_MS = 2_000;

/**
 * METRICS_PORT equal to HTTP_PORT: the second server cannot listen where the first does, and the
 * start failed only once both servers were up, with a message about HTTP_PORT alone.
 */
function NotTheHttpPort(): PropertyDecorator {
  return RelatedVariable<PlatformConfig>('notTheHttpPort', {
    reads: (config) => [config.HTTP_PORT],
    holds: (port, config) => port === 0 || port !== config.HTTP_PORT,
    message: (config) => `must not be HTTP_PORT (${config.HTTP_PORT}): /metrics is served on a port of its own; unset METRICS_PORT to serve it on HTTP_PORT`,
  });
}

/** Variables every app reads. */
export class PlatformConfig {
  @Describe('Runtime profile: `distributed` (NATS, Redis, one process per app) or `standalone` (one process, in-process transport).')
  @IsIn(PROFILES)
  GATEWAY_PROFILE: Profile = 'distributed';

  @Describe('Minimum level of the JSON logs.')
  @IsIn(LOG_LEVELS)
  LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';

  @Describe('Address the HTTP server (API or health and metrics) binds to.')
  @IsString()
  HTTP_HOST = '0.0.0.0';

  @Describe('Port of the HTTP server: the API at the edge, health and metrics on services.')
  @IntVar()
  @IsInt()
  @Min(0)
  @Max(65535)
  HTTP_PORT = 8080;

  @Describe('Port of a second HTTP server that serves only /metrics, so that Prometheus can be let in to it and kept out of the API\'s port (a NetworkPolicy tells ports apart, not paths). Unset: /metrics is served on HTTP_PORT. Not HTTP_PORT itself (0 for both, any free ports, excepted).')
  @IsOptional()
  @IntVar()
  @IsInt()
  @Min(0)
  @Max(65535)
  @NotTheHttpPort()
  METRICS_PORT: number | undefined = undefined;

  @Describe('NATS server URLs, comma-separated. With a user and password or a token in them (`tls://<user>:<password>@host:4222`), keep it in a Secret.', {
    secret: 'credentials-in-url',
  })
  @IsString()
  @Matches(/^(nats|tls):\/\/[^,\s]+(,(nats|tls):\/\/[^,\s]+)*$/)
  NATS_URL = 'nats://127.0.0.1:4222';

  @Describe('PEM file of the CA certificates that sign the NATS servers\' certificates, when not a public CA (e.g. mounted from a Secret). With it, or with a tls:// URL in NATS_URL, every NATS connection requires TLS and verifies the server\'s certificate: a server that offers no TLS is refused, never used in plain text.')
  @IsOptional()
  @IsString()
  NATS_TLS_CA_FILE = '';

  @Describe('PEM file of this app\'s client certificate, for NATS servers that admit only clients whose certificate their CA signed (mutual TLS; e.g. mounted from a Secret). Set with NATS_TLS_KEY_FILE; with them every NATS connection requires TLS.')
  @ValidateIf((config: PlatformConfig) => config.NATS_TLS_KEY_FILE !== '')
  @IsString()
  @IsNotEmpty({ message: 'is required with NATS_TLS_KEY_FILE' })
  NATS_TLS_CERT_FILE = '';

  @Describe('PEM file of the private key of NATS_TLS_CERT_FILE.')
  @ValidateIf((config: PlatformConfig) => config.NATS_TLS_CERT_FILE !== '')
  @IsString()
  @IsNotEmpty({ message: 'is required with NATS_TLS_CERT_FILE' })
  NATS_TLS_KEY_FILE = '';

  @Describe('Prefix for every subject; lets several deployments or test runs share one NATS server.')
  @IsOptional()
  @Matches(/^([A-Za-z0-9_-]+\.)?$/, { message: 'must be empty or a token followed by a dot' })
  NATS_SUBJECT_PREFIX = '';

  @Describe('Longest wait for a service to answer a request; past it the caller gets SERVER_BUSY. The same value in every app: api-edge\'s ORDER_LOCK_TTL_MS and order-transaction\'s REFUND_CALL_TIMEOUT_MS are checked against it at start.')
  @IntVar()
  @IsInt()
  @Min(50)
  @Max(120_000)
  NATS_REQUEST_TIMEOUT_MS = 10_000;

  @Describe('Most NATS requests one service process handles at once (distributed profile); one more is refused unprocessed (503 SERVER_BUSY, the merchant retries), so a backlog cannot exhaust the heap.')
  @IntVar()
  @IsInt()
  @Min(1)
  @Max(100_000)
  NATS_MAX_IN_FLIGHT = DEFAULT_NATS_MAX_IN_FLIGHT;

  @Describe('Largest reply a service sends, in bytes. Over NATS\'s max_payload (1 MiB) a reply is sent in parts; over this it is answered SERVER_FAILED instead (a GET of an order with that many transactions), so no process holds more for one reply. The same value in every app: a requester refuses a reply over its own. The edge needs several times a reply in heap while it renders it: raise its memory with this.')
  @IntVar()
  @IsInt()
  @Min(1024 * 1024)
  @Max(64 * 1024 * 1024)
  NATS_MAX_REPLY_BYTES = DEFAULT_NATS_MAX_REPLY_BYTES;

  @Describe('Timeout of each readiness check (database, NATS, Redis, services). The checks run together: keep it under the readiness probe\'s timeout (3 s in k8s/), or a slow dependency times the probe out before the answer names it.')
  @IntVar()
  @IsInt()
  @MinMilliseconds(50)
  @Max(30_000)
  HEALTH_CHECK_TIMEOUT_MS = 1_000;

  @Describe('After SIGTERM: longest time to finish in-flight work before the process exits. api-edge, order-transaction and the standalone gateway refuse to start with less than their longest stop needs (with the defaults: api-edge 34000, an expired-payment settlement in progress, then a payer\'s step waiting for the order\'s lock between two requests, then the drain; order-transaction 50000, an inquiry in progress, then a card operation whose completion is retried while the database is away, then the drain; the standalone gateway 60100, its jobs, then such a card operation begun as late as an order operation\'s lock wait and NATS_REQUEST_TIMEOUT_MS allow, then the drain). Unset, the standalone gateway takes what it needs, not 50000.')
  @ShutdownGraceVar()
  SHUTDOWN_GRACE_MS = DEFAULT_SHUTDOWN_GRACE_MS;
}

/** Variables of apps that own a database schema. */
export class DatabaseConfig extends PlatformConfig {
  @Describe('Postgres URL of this service, with its own role (password included: keep it in a Secret).', {
    secret: true,
  })
  @IsString()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// URL' })
  DATABASE_URL: string = undefined as unknown as string;

  @Describe('Connections in this process\'s pool (at least 2: migrating on start holds one for its lock).')
  @IntVar()
  @IsInt()
  @Min(2)
  @Max(200)
  DATABASE_POOL_SIZE = 10;

  @Describe('Statement timeout; a query running longer is cancelled.')
  @IntVar()
  @IsInt()
  @Min(100)
  @Max(600_000)
  DATABASE_STATEMENT_TIMEOUT_MS = 10_000;

  @Describe('How long a starting process waits for its database (trying every second) before it exits 1, so the orchestrator restarts it with its backoff. An attempt in progress at the deadline (at most 5 s) is let finish. Keep it under the Deployments\' startup probe window (1 minute).')
  @IntVar()
  @IsInt()
  @Min(1)
  @Max(600)
  DATABASE_CONNECT_TIMEOUT_SECONDS = 30;

  @Describe('How long a migration statement waits for a lock (Postgres lock_timeout) before its migration gives way and is retried, 5 times after a growing pause. While a DDL statement waits, every query on its table queues behind it: this bounds that stall. Raise it for a run that keeps timing out behind long transactions (CREATE INDEX CONCURRENTLY waits for every older one in the database).')
  @IntVar()
  @IsInt()
  @Min(100)
  @Max(600_000)
  DATABASE_MIGRATION_LOCK_TIMEOUT_MS = DEFAULT_MIGRATION_LOCK_TIMEOUT_MS;

  @Describe('Seconds a database connection may be silent before the server starts probing this process (Postgres tcp_keepalives_idle, set per session). A session holds advisory locks (the webhook dispatcher\'s claims, the migration lock) until the server finds it gone: with the kernel\'s default that takes 2 hours after a node is lost; with 30 s, 10 s and 3 probes about a minute. 0 sends no settings at connection start (for a pooler that refuses startup options): the server\'s own then hold.')
  @IntVar()
  @IsInt()
  @Min(0)
  @Max(7_200)
  DATABASE_TCP_KEEPALIVE_IDLE_SECONDS = 30;

  @Describe('Seconds between the server\'s keepalive probes of a silent connection (Postgres tcp_keepalives_interval).')
  @IntVar()
  @IsInt()
  @Min(1)
  @Max(600)
  DATABASE_TCP_KEEPALIVE_INTERVAL_SECONDS = 10;

  @Describe('Unanswered keepalive probes after which the server ends the session and releases its locks (Postgres tcp_keepalives_count). Data left unacknowledged for as long as the keepalive takes in all (tcp_user_timeout) ends it too.')
  @IntVar()
  @IsInt()
  @Min(1)
  @Max(100)
  DATABASE_TCP_KEEPALIVE_COUNT = 3;

  @Describe('Apply pending migrations at start (under an advisory lock). Kubernetes sets false and runs the migration Job instead.')
  @BoolVar()
  @IsBoolean()
  DATABASE_MIGRATE_ON_START = true;
}
