import { Inject, Injectable } from '@nestjs/common';
import { GatewayError, newSupportCode, WireError } from '@gateway/contracts';
import { AppLogger } from '../logging';
import { Metrics } from '../metrics';
import { APP_LOGGER, MESSAGE_CLIENT, MESSAGING_OPTIONS } from '../tokens';

/**
 * TLS every NATS connection insists on, verifying the server against `caFile` or the system's
 * CAs, and showing the server `certFile` (with `keyFile`) when it asks for a client certificate.
 */
export interface NatsTls {
  caFile?: string;
  certFile?: string;
  keyFile?: string;
}

export interface MessagingOptions {
  profile: 'distributed' | 'standalone';
  servers: string[];
  /** None: plain NATS unless the server itself requires TLS (nats:// URLs, no CA file). */
  tls?: NatsTls | null;
  subjectPrefix: string;
  requestTimeoutMs: number;
  /** The NATS connection name and queue group: the app's service name. */
  serviceName: string;
  /** Most requests the service's NATS server handles at once (NATS_MAX_IN_FLIGHT); unset: its default. */
  maxInFlight?: number;
  /** The largest reply sent or accepted (NATS_MAX_REPLY_BYTES); unset: its default. */
  maxReplyBytes?: number;
}

/** Transport failures: the dependency is unavailable, not broken (NEVER_SENT's are read before). */
const UNAVAILABLE = new Set(['NoResponders', 'TimeoutError', 'RequestError', 'ClosedConnectionError']);

/**
 * Transport failures raised before anything of the request left this process (read in nats.js 3,
 * @nats-io/nats-core): DrainingConnectionError only by the checks `publish` and `subscribe` make
 * before they queue anything; ConnectionError only while dialling, before there is a connection to
 * publish on; NotSent, our clients' own name for a publish refused on a closed connection or NATS
 * not reached in the request's time (transport-failure.ts). The request had no effect, as one nobody
 * serves: NotDeliveredError. Not RequestError nor ClosedConnectionError: nats.js raises them for a
 * request already published too (its request's "connection closed", our inbox closing).
 */
const NEVER_SENT = new Set(['NotSent', 'DrainingConnectionError', 'ConnectionError']);

/**
 * Transport failures after which the request may have reached a service that acts on it: a
 * timeout, and a connection closed while the reply was awaited (the request was published; our
 * client names a publish refused on a closed connection NotSent instead).
 */
const MAY_HAVE_BEEN_RECEIVED = new Set(['TimeoutError', 'ClosedConnectionError']);

/**
 * SERVER_BUSY because the request never left this process (its connection closed, draining or not
 * made), no instance serves the subject, or the instance that got the request refused it
 * unprocessed (over its in-flight cap): the request had no effect (unlike after a timeout, when
 * the service may have acted). A caller that reserved something before the request can release
 * it safely on this one.
 */
export class NotDeliveredError extends GatewayError {
  constructor(readonly subject: string) {
    super('SERVER_BUSY', { explanation: 'The gateway is busy. Please retry the request.', retryAfterSeconds: 1 });
  }
}

/**
 * SERVER_BUSY because the service did not answer within the request's timeout: it may have the
 * request and act on it after the caller stopped waiting (docs/decisions/overload-behaviour.md,
 * finding 2), so nothing reserved for it may be released. The edge tells the merchant so for an
 * order operation (DispatchOrderOperation).
 */
export class UnansweredError extends GatewayError {
  constructor(readonly subject: string) {
    super('SERVER_BUSY', { explanation: 'The gateway is busy. Please retry the request.', retryAfterSeconds: 1 });
  }
}

/**
 * The reply of a service that refused a request unprocessed (GatewayNatsServer's in-flight cap):
 * SERVER_BUSY's wire form, which a requester of the release before reads as any SERVER_BUSY
 * (503, Retry-After), plus `notActedOn`, which this release's requesters read as never delivered.
 */
export function notActedOnReply(): WireError & { notActedOn: true } {
  return { ...GatewayError.serverBusy().toWire(), notActedOn: true };
}

function isNotActedOn(err: unknown): boolean {
  return GatewayError.isWire(err) && err.code === 'SERVER_BUSY' && (err as { notActedOn?: unknown }).notActedOn === true;
}

/** The message client's side MessageBus uses (NATS or in-process): one request, one reply. */
export interface RequestReplyClient {
  /**
   * The reply's response; the service's error as it sent it (a coded error's wire form); or a
   * transport failure, an Error named for it: NoResponders, NotSent, DrainingConnectionError,
   * TimeoutError, ClosedConnectionError.
   */
  request(subject: string, data: unknown, timeoutMs: number): Promise<unknown>;
}

function isNoResponders(err: unknown): boolean {
  // Our clients: the error itself; nats.js's own request: a RequestError whose cause it is.
  return err instanceof Error && (err.name === 'NoResponders' || (err.cause instanceof Error && err.cause.name === 'NoResponders'));
}

/**
 * Request/reply to other services. Every request has a timeout; a timeout, "no responders", a
 * refusal unprocessed or a lost connection becomes SERVER_BUSY; a coded error from the service is rethrown as
 * the same GatewayError; anything else is logged under a support code and becomes
 * SERVER_FAILED.
 */
@Injectable()
export class MessageBus {
  constructor(
    @Inject(MESSAGE_CLIENT) private readonly client: RequestReplyClient,
    @Inject(MESSAGING_OPTIONS) private readonly options: MessagingOptions,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    private readonly metrics: Metrics,
  ) {}

  /**
   * When a request sent now stops being waited for (epoch ms, this process's clock): an
   * operation's `deadline` (docs/decisions/operation-deadline.md). `timeoutMs`: the request's own
   * timeout, when it is sent with one (`request`'s option); the default timeout otherwise.
   */
  deadline(timeoutMs: number = this.options.requestTimeoutMs): number {
    return Date.now() + timeoutMs;
  }

  /**
   * `options.timeoutMs`: this request's own wait (the default timeout when not given).
   * `options.deadline`: a wait the request shares with those sent before it for the same work (an
   * order operation's budget under its lock: docs/decisions/shutdown-grace.md, amendment on one
   * budget): it is sent with the time left to that deadline as its timeout, and not sent at all
   * once none is left (NotDeliveredError: nothing was sent, so nothing was done).
   */
  async request<TReply>(subject: string, payload: object, options: { timeoutMs?: number; deadline?: number } = {}): Promise<TReply> {
    const timeoutMs = options.deadline === undefined ? (options.timeoutMs ?? this.options.requestTimeoutMs) : this.timeLeft(subject, options.deadline);
    const started = process.hrtime.bigint();
    let outcome = 'ok';
    try {
      return (await this.client.request(`${this.options.subjectPrefix}${subject}`, payload, timeoutMs)) as TReply;
    } catch (err) {
      const mapped = this.mapError(subject, err);
      // `refused`: the service answered at once that it did not act on the request (its in-flight
      // cap, or past the request's deadline); it is up and counts its refusals itself
      // (GatewayRequestsShed). `unavailable` (GatewayServiceUnavailable) is a service away or not
      // answering in time, or answering SERVER_BUSY for its own dependency.
      outcome = isNotActedOn(err) ? 'refused' : mapped.code === 'SERVER_BUSY' ? 'unavailable' : mapped.code === 'SERVER_FAILED' ? 'failed' : 'rejected';
      throw mapped;
    } finally {
      this.metrics.natsRequestDuration.observe(
        { subject, outcome },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    }
  }

  /** The time left to `deadline`; none: the request is not sent (not logged: under overload that is a line per request). */
  private timeLeft(subject: string, deadline: number): number {
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new NotDeliveredError(subject);
    }
    return left;
  }

  private mapError(subject: string, err: unknown): GatewayError {
    if (err instanceof GatewayError) {
      return err;
    }
    if (isNotActedOn(err)) {
      // Not logged here: under overload that is a line per request; the refusing service logs.
      return new NotDeliveredError(subject);
    }
    if (GatewayError.isWire(err)) {
      return GatewayError.fromWire(err);
    }
    if (isNoResponders(err)) {
      this.logger.warn({ subject, reason: 'NoResponders' }, 'service unavailable');
      return new NotDeliveredError(subject);
    }
    if (err instanceof Error && NEVER_SENT.has(err.name)) {
      this.logger.warn({ subject, reason: err.name, message: err.message }, 'service unavailable: request not sent');
      return new NotDeliveredError(subject);
    }
    if (err instanceof Error && UNAVAILABLE.has(err.name)) {
      this.logger.warn({ subject, reason: err.name }, 'service unavailable');
      return MAY_HAVE_BEEN_RECEIVED.has(err.name) ? new UnansweredError(subject) : GatewayError.serverBusy();
    }
    const supportCode = newSupportCode();
    this.logger.error({ subject, supportCode, err }, 'unexpected reply from service');
    return GatewayError.serverFailed(supportCode);
  }
}
