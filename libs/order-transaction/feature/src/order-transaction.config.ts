import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { DATABASE_UNAVAILABLE_WINDOW_MS, INQUIRY_WAIT_MS, REVERSAL_WAIT_MS } from '@gateway/order-transaction/domain';
import {
  BoolVar,
  DATABASE_CONNECT_TIMEOUT_MS,
  DatabaseConfig,
  DEFAULT_PERSONAL_DATA_RETENTION_DAYS,
  DEFAULT_SHUTDOWN_GRACE_MS,
  Describe,
  IntVar,
  MinMilliseconds,
  PersonalDataRetentionDaysVar,
  RelatedVariable,
  RequestHashKeyVar,
  SHUTDOWN_DRAIN_MARGIN_MS,
  ShutdownGraceVar,
} from '@gateway/platform';

/**
 * Margin of ABANDONED_RESERVATION_AFTER_MS over the longest reserved operation: the reservation's
 * `updated_at` is the writing process's clock, compared by another's (NTP keeps them within
 * milliseconds), and its commit follows that time by a statement.
 */
export const ABANDONED_CLOCK_MARGIN_MS = 10_000;

export const ORDER_TRANSACTION_MODES = ['all', 'serve', 'dispatch'] as const;
export type OrderTransactionMode = (typeof ORDER_TRANSACTION_MODES)[number];

/** order-transaction's configuration, read once at boot (see docs/operations/configuration.md). */
export class OrderTransactionConfig extends DatabaseConfig {
  override HTTP_PORT = 8082;

  // The platform's variable, checked here against what a stopping ledger must finish, and with the
  // platform's own checks again (the override would drop them).
  @ShutdownGraceVar()
  @OutlastsTheLongestStop()
  override SHUTDOWN_GRACE_MS = DEFAULT_SHUTDOWN_GRACE_MS;

  @Describe(
    'What this process does: `serve` answers the ledger\'s NATS subjects, `dispatch` only delivers webhook notifications ' +
      '(no NATS at all; its own Deployment, scaled on gateway_webhook_outbox_due), `all` both (the standalone profile). ' +
      'Notifications are delivered only where some process dispatches.',
  )
  @IsIn(ORDER_TRANSACTION_MODES)
  ORDER_TRANSACTION_MODE: OrderTransactionMode = 'serve';

  @RequestHashKeyVar('Required unless ORDER_TRANSACTION_MODE is dispatch.')
  REQUEST_HASH_KEY = '';

  @Describe(
    'Keys that open merchants\' sealed webhook notification secrets: `<id>:<base64 of 32 bytes>` entries, comma-separated, ' +
      'first = current (the admin CLI seals with it). Required when dispatching; the admin CLI and `notifications resend` need the same value.',
    { secret: true },
  )
  @IsOptional()
  @IsString()
  WEBHOOK_SECRET_KEYS = '';

  @Describe('Deliveries one dispatcher worker has in flight at most (each notification locked while it is delivered); a worker claims more as each ends.')
  @IntVar()
  @IsInt()
  @Min(1)
  @Max(500)
  WEBHOOK_BATCH_SIZE = 20;

  @Describe(
    'Workers one dispatcher process runs (each holds one database connection while it has deliveries in flight). ' +
      'Fewer than DATABASE_POOL_SIZE where this process dispatches: the outbox\'s other queries (the due gauge the dispatcher is scaled on, a timed-out receiver\'s deferral, the purge; in `all` mode the ledger\'s) need a connection beside them.',
  )
  @IntVar()
  @IsInt()
  @Min(1)
  @Max(32)
  @FewerThanPoolConnections()
  WEBHOOK_WORKERS = 2;

  @Describe(
    'Deliveries to one receiver (scheme, host and port of its URL) one dispatcher process has in flight at most, over all its workers: ' +
      'a receiver that hangs holds no more delivery slots than this. After a delivery to it times out, its notifications wait (the retry backoff, doubling with each further timeout in a row).',
  )
  @IntVar()
  @IsInt()
  @Min(1)
  @Max(500)
  WEBHOOK_MAX_IN_FLIGHT_PER_TARGET = 4;

  @Describe('How often an idle dispatcher worker looks for due notifications.')
  @IntVar()
  @IsInt()
  @Min(50)
  @Max(60_000)
  WEBHOOK_POLL_INTERVAL_MS = 1_000;

  @Describe(
    'Longest time one delivery may take (connect, TLS, response); then the attempt counts as failed. ' +
      'A receiver that times out delays only its own notifications.',
  )
  @IntVar()
  @IsInt()
  @MinMilliseconds(500)
  @Max(60_000)
  WEBHOOK_TIMEOUT_MS = 10_000;

  @Describe('Wait after the first failed delivery; doubled after each further failure (with jitter), up to WEBHOOK_RETRY_MAX_DELAY_MS.')
  @IntVar()
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  WEBHOOK_RETRY_BASE_MS = 10_000;

  @Describe('Longest wait between two delivery attempts.')
  @IntVar()
  @IsInt()
  @Min(100)
  @Max(86_400_000)
  WEBHOOK_RETRY_MAX_DELAY_MS = 3_600_000;

  @Describe('How long a notification is retried before it is marked failed (at least 24 hours; re-send failed ones with `notifications resend`).')
  @IntVar()
  @IsInt()
  @Min(24)
  @Max(720)
  WEBHOOK_RETRY_WINDOW_HOURS = 24;

  @Describe(
    'Let notifications of TEST merchants go to loopback and private addresses (a local receiver in tests or on a laptop). ' +
      'Never applies to LIVE merchants; keep false in production.',
  )
  @BoolVar()
  @IsBoolean()
  WEBHOOK_ALLOW_PRIVATE_TARGETS = false;

  @Describe('PEM file of extra CA certificates trusted for webhook receivers, besides the system\'s (a test receiver\'s self-signed certificate).')
  @IsOptional()
  @IsString()
  WEBHOOK_CA_FILE = '';

  @Describe('Delivered notifications are deleted from the outbox this many days after delivery, failed ones this many days after their last attempt (re-send a failed one before then).')
  @IntVar()
  @IsInt()
  @Min(1)
  @Max(3_650)
  WEBHOOK_RETENTION_DAYS = 30;

  @PersonalDataRetentionDaysVar(
    'the ledger\'s records of the order (its details, every stored operation response, its webhook notifications\' payloads, the query of its notification URL; an agreement\'s own custom data stays, its series may still be paid on)',
    'Run hourly with jitter by each request-serving process (not `dispatch` ones); replicas share the work, each order stripped in its own transaction on its locked row and marked so until its next operation.',
  )
  PERSONAL_DATA_RETENTION_DAYS = DEFAULT_PERSONAL_DATA_RETENTION_DAYS;

  @Describe(
    'How often each request-serving process asks the acquirer about card transactions recorded UNKNOWN (their answer was lost) ' +
      'and records what it learns (docs/decisions/unknown-resolution.md); replicas share the work. 0 turns it off: operators then ' +
      'record outcomes with `transactions resolve`. It is also the first wait before a transaction the acquirer could not tell about is asked again (doubling, up to an hour).',
  )
  @IntVar()
  @IsInt()
  @Min(0)
  @Max(86_400_000)
  UNKNOWN_INQUIRY_INTERVAL_MS = 60_000;

  @Describe('How long after an UNKNOWN outcome was recorded the acquirer is first asked about it: time for the acquirer\'s own records to settle.')
  @IntVar()
  @IsInt()
  @Min(0)
  @Max(86_400_000)
  UNKNOWN_INQUIRY_AFTER_MS = 300_000;

  @Describe('Inquiries one process sends per round at most, one after another.')
  @IntVar()
  @IsInt()
  @Min(1)
  @Max(500)
  UNKNOWN_INQUIRY_BATCH_SIZE = 20;

  @Describe(
    'How long after its last write a card operation\'s reservation still PENDING is taken as abandoned (its process died between the reservation and its completion) ' +
      'and, once a retry, another operation on the order or a GET meets it, is queued for the acquirer inquiries (asked no sooner than UNKNOWN_INQUIRY_AFTER_MS after that write). ' +
      'At least the longest a live operation may still complete its reservation (REFUND_CALL_TIMEOUT_MS + the reversal\'s ' +
      `${REVERSAL_WAIT_MS} ms + the completion's ${DATABASE_UNAVAILABLE_WINDOW_MS} ms of retries + ${DATABASE_CONNECT_TIMEOUT_MS} ms for its last connection) plus ${ABANDONED_CLOCK_MARGIN_MS} ms for clocks and commit, where this process serves requests. ` +
      'The operators\' `transactions resolve` keeps its own 10 minutes.',
  )
  @IntVar()
  @IsInt()
  @Min(1_000)
  @Max(86_400_000)
  @OutlastsAnyCompletion()
  ABANDONED_RESERVATION_AFTER_MS = 120_000;

  @Describe(
    'How often each request-serving process sweeps the ledger for card reservations abandoned PENDING (ABANDONED_RESERVATION_AFTER_MS old) that no read met, ' +
      'and queues them for the acquirer inquiries (docs/decisions/unknown-resolution.md): each sweep reads the transactions created since the last one\'s, up to ABANDONED_RESERVATION_AFTER_MS ago (an hour of them at most, the next step a second later while behind); one replica sweeps at a time, the others skip. ' +
      '0 turns it off: such a reservation then waits for a read that meets it, or an operator\'s `transactions resolve`; turned on again, the sweep catches up from where it stopped. The inquiries themselves run every UNKNOWN_INQUIRY_INTERVAL_MS; ' +
      'where they are off (UNKNOWN_INQUIRY_INTERVAL_MS 0) nothing is swept whatever this says (logged at start): nobody would ask about what it queued, `transactions unresolved` lists the reservations, and the sweep catches up once the inquiries are on. ' +
      'A stopping process does not wait for a sweep step in progress: cut off, it commits nothing, and the next sweep reads its window again.',
  )
  @IntVar()
  @IsInt()
  @Min(0)
  @Max(86_400_000)
  ABANDONED_RESERVATION_SWEEP_INTERVAL_MS = 60_000;

  @Describe(
    'Longest wait for a refund\'s money movement through another service (the token vault\'s acquirer call, browser-payment\'s provider refund), for an AUTHORIZE or PAY whose card the token vault holds (a token\'s or a payment session\'s: the vault makes the acquirer call), and for a capture or void of a browser payment\'s authorisation at its provider. Shorter than NATS_REQUEST_TIMEOUT_MS (the same value in every app) less ' +
      `${REVERSAL_WAIT_MS} ms, the wait for a timed-out call's reversal, where this process serves requests: an operation whose call timed out is then recorded (UNKNOWN, or declined and reversed) and answered before the edge stops waiting.`,
  )
  @IntVar()
  @IsInt()
  @Min(100)
  @Max(120_000)
  @AnsweredBeforeTheEdgeStopsWaiting()
  REFUND_CALL_TIMEOUT_MS = 5_000;
}

/**
 * An operation's calls under the edge's wait: the call through another service (up to
 * REFUND_CALL_TIMEOUT_MS), then, when the acquirer answered TIMED_OUT, the reversal (up to
 * REVERSAL_WAIT_MS), then the ledger's record. Past NATS_REQUEST_TIMEOUT_MS the edge answers
 * SERVER_BUSY while the money moves or is reversed, and the merchant learns the outcome only by
 * retrying. Checked against this process's NATS_REQUEST_TIMEOUT_MS, which deployments set once
 * for every app (a manifest test holds them equal). A dispatcher answers no requests.
 */
function AnsweredBeforeTheEdgeStopsWaiting(): PropertyDecorator {
  return RelatedVariable<OrderTransactionConfig>('answeredBeforeTheEdgeStopsWaiting', {
    appliesTo: (config) => config.ORDER_TRANSACTION_MODE !== 'dispatch',
    reads: (config) => [config.NATS_REQUEST_TIMEOUT_MS],
    holds: (callTimeout, config) => callTimeout + REVERSAL_WAIT_MS < config.NATS_REQUEST_TIMEOUT_MS,
    message: (config) =>
      `must be shorter than NATS_REQUEST_TIMEOUT_MS less the timed-out reversal's wait (${config.NATS_REQUEST_TIMEOUT_MS} - ${REVERSAL_WAIT_MS} ms): an operation whose call timed out must be answered before the edge stops waiting`,
  });
}

/**
 * Each dispatcher worker holds a pooled connection while its deliveries are in flight (its
 * claims are session locks). With as many workers as connections, a hanging receiver leaves none
 * for the rest: the due gauge the dispatcher's autoscaler reads, the deferral that sets the
 * receiver aside, and in `all` mode the ledger's requests, each wait out the pool's timeout and fail.
 */
function FewerThanPoolConnections(): PropertyDecorator {
  return RelatedVariable<OrderTransactionConfig>('fewerThanPoolConnections', {
    appliesTo: (config) => config.ORDER_TRANSACTION_MODE !== 'serve',
    reads: (config) => [config.DATABASE_POOL_SIZE],
    holds: (workers, config) => workers < config.DATABASE_POOL_SIZE,
    message: (config) =>
      `must be fewer than DATABASE_POOL_SIZE (${config.DATABASE_POOL_SIZE}) where this process dispatches: each worker holds a connection while it delivers, and the outbox's other queries need one beside them`,
  });
}

/**
 * The longest a card operation runs from its reservation's write to its completion's last try:
 * its call through another service timed out (REFUND_CALL_TIMEOUT_MS; the acquirer connector's
 * own calls are assumed no longer), the reversal of a TIMED_OUT answer waited for
 * (REVERSAL_WAIT_MS), its completion retried while the database was away
 * (DATABASE_UNAVAILABLE_WINDOW_MS), the last try waiting for a connection
 * (DATABASE_CONNECT_TIMEOUT_MS). A stopping process lets it run (its grace outlasts this plus its
 * shutdown hooks: shutdownGraceNeeded), and one that dies ends it; either way nothing completes
 * a reservation later than this after its write.
 */
export function longestReservedOperation(config: OrderTransactionConfig): number {
  return config.REFUND_CALL_TIMEOUT_MS + REVERSAL_WAIT_MS + DATABASE_UNAVAILABLE_WINDOW_MS + DATABASE_CONNECT_TIMEOUT_MS;
}

/**
 * A reservation is taken as abandoned only once no operation could still complete it: an inquiry
 * asked before the operation's own acquirer call arrived would be told "not found" and free the
 * amount of a payment the acquirer then approves. Checked where requests are served (the
 * inquiries run there).
 */
function OutlastsAnyCompletion(): PropertyDecorator {
  return RelatedVariable<OrderTransactionConfig>('outlastsAnyCompletion', {
    appliesTo: (config) => config.ORDER_TRANSACTION_MODE !== 'dispatch',
    reads: (config) => [config.REFUND_CALL_TIMEOUT_MS],
    holds: (after, config) => after >= longestReservedOperation(config) + ABANDONED_CLOCK_MARGIN_MS,
    message: (config) =>
      `must be at least ${longestReservedOperation(config) + ABANDONED_CLOCK_MARGIN_MS}: a live operation may complete its reservation up to REFUND_CALL_TIMEOUT_MS + ${REVERSAL_WAIT_MS} reversal + ` +
      `${DATABASE_UNAVAILABLE_WINDOW_MS} retries + ${DATABASE_CONNECT_TIMEOUT_MS} last connection wait after writing it (${longestReservedOperation(config)}), plus ${ABANDONED_CLOCK_MARGIN_MS} for clocks and commit`,
  });
}

/**
 * The shortest SHUTDOWN_GRACE_MS with which a stopping ledger cuts off none of its work. On
 * SIGTERM the grace timer starts; Nest first runs the shutdown hooks, among them BackgroundJobs',
 * which stops every background job at the same moment and waits for them together (the round of
 * inquiries stops after the one in progress, INQUIRY_WAIT_MS; the dispatcher claims nothing more
 * and finishes its deliveries, WEBHOOK_TIMEOUT_MS each; the sweep and the payer personal-data
 * retention are not waited for), while the
 * NATS subscriptions still take requests; only then does the
 * message server stop taking them and wait for those in flight. The longest of those is a card
 * operation whose vault call timed out (REFUND_CALL_TIMEOUT_MS), whose reversal was waited for
 * (REVERSAL_WAIT_MS) and whose completion was retried while the database was away
 * (DATABASE_UNAVAILABLE_WINDOW_MS), its last try started just before that window's end and
 * waiting for a connection (DATABASE_CONNECT_TIMEOUT_MS). Cut off, that completion leaves money
 * that moved recorded nowhere but in a log line.
 */
export function shutdownGraceNeeded(config: OrderTransactionConfig): number {
  const requests = config.ORDER_TRANSACTION_MODE === 'dispatch' ? 0 : longestReservedOperation(config);
  return ledgerJobsStop(config) + requests + SHUTDOWN_DRAIN_MARGIN_MS;
}

/**
 * How long the ledger's background jobs take to stop: the longer of the inquiry in progress
 * (where requests are served and the reconciler runs) and the deliveries in flight (where
 * notifications are dispatched). They stop side by side (BackgroundJobs; a job with a hook of its
 * own would be awaited one dependency depth after another by Nest, and the waits would add up).
 */
export function ledgerJobsStop(config: OrderTransactionConfig): number {
  const deliveries = config.ORDER_TRANSACTION_MODE !== 'serve' ? config.WEBHOOK_TIMEOUT_MS : 0;
  const inquiry = config.ORDER_TRANSACTION_MODE !== 'dispatch' && config.UNKNOWN_INQUIRY_INTERVAL_MS > 0 ? INQUIRY_WAIT_MS : 0;
  // The payer personal-data retention is not waited for (PersonalDataRetention): an order's
  // erasure cut off by the pool's close commits nothing, and the next run does it again.
  return Math.max(inquiry, deliveries);
}

function OutlastsTheLongestStop(): PropertyDecorator {
  return RelatedVariable<OrderTransactionConfig>('outlastsTheLongestStop', {
    reads: (config) => [config.REFUND_CALL_TIMEOUT_MS, config.UNKNOWN_INQUIRY_INTERVAL_MS, config.WEBHOOK_TIMEOUT_MS],
    holds: (grace, config) => grace >= shutdownGraceNeeded(config),
    message: (config) =>
      config.ORDER_TRANSACTION_MODE === 'dispatch'
        ? `must be at least ${shutdownGraceNeeded(config)} (WEBHOOK_TIMEOUT_MS + ${SHUTDOWN_DRAIN_MARGIN_MS} to drain): a stopping dispatcher finishes the deliveries in flight`
        : `must be at least ${shutdownGraceNeeded(config)}: a stopping ledger first ends its shutdown hooks (the longer of an inquiry in progress, ${INQUIRY_WAIT_MS}, ` +
          `and deliveries in flight, WEBHOOK_TIMEOUT_MS), then finishes the requests in flight, the longest a card operation whose completion is retried ` +
          `while the database is away (REFUND_CALL_TIMEOUT_MS + ${REVERSAL_WAIT_MS} reversal + ${DATABASE_UNAVAILABLE_WINDOW_MS} retries + ` +
          `${DATABASE_CONNECT_TIMEOUT_MS} last connection wait), then drains (${SHUTDOWN_DRAIN_MARGIN_MS})`,
  });
}
