import { ServerNats } from '@nestjs/microservices';
import type { Msg, MsgHdrs, NatsConnection, Subscription } from '@nats-io/transport-node';
import { isObservable } from 'rxjs';
import { GatewayError, newSupportCode, type WireError } from '@gateway/contracts';
import { DEFAULT_NATS_MAX_REPLY_BYTES } from '../config/platform.config';
import type { AllExceptionsFilter } from '../errors';
import type { AppLogger } from '../logging';
import type { Metrics } from '../metrics';
import type { DirectHandler } from './direct-handlers';
import { notActedOnReply, type NatsTls } from './message-bus';
import { publishInParts } from './reply-parts';
import type { DirectOutcome, RequestContextInterceptor } from './request-context.interceptor';

export interface GatewayNatsServerOptions {
  servers: string[];
  /** TLS the connection insists on (MessagingOptions.tls). */
  tls?: NatsTls | null;
  name: string;
  /** Queue group: one per service, so each request goes to exactly one of its replicas. */
  queue: string;
  subjectPrefix: string;
  /** How long close() waits for in-flight handlers before closing the connection anyway. */
  drainTimeoutMs: number;
  /**
   * Most requests handled at once: one more is refused unprocessed (load shedding,
   * docs/decisions/load-shedding.md).
   */
  maxInFlight: number;
  /**
   * The largest reply sent (NATS_MAX_REPLY_BYTES): over the server's max_payload a reply goes in
   * parts (reply-parts.ts), over this it is answered SERVER_FAILED. Unset: its default.
   */
  maxReplyBytes?: number;
}

/**
 * Handlers the server calls itself instead of through Nest's pipeline (docs/performance.md), with
 * the interceptor and exception filter that pipeline would run around them.
 */
export interface DirectDispatch {
  handlers: Map<string, DirectHandler>;
  interceptor: RequestContextInterceptor;
  filter: AllExceptionsFilter;
}

/** A request as Nest's NATS client frames it: the packet id the reply must carry, and the data. */
interface RequestPacket {
  id: string;
  data: unknown;
}

/** Refusals are logged at most this often, with their count since: under overload they come by the thousand. */
const SHED_LOG_INTERVAL_MS = 10_000;

/**
 * Nest's NATS server with what production needs around it: the subject prefix, a queue group
 * per service, and a graceful close that stops taking new requests, lets in-flight ones
 * answer, then drains the connection (Nest's own close drops them). A request arriving while
 * `maxInFlight` handlers run is refused at once, before any work (SERVER_BUSY, not acted on), so
 * a backlog the database cannot serve cannot grow until the heap runs out.
 *
 * Subjects given to `dispatchDirectly` skip Nest's handler pipeline (its interceptor and
 * exception-filter chains, rxjs, the reply queue: 5-7% of a service's CPU): the server reads the
 * packet, calls the controller's method under the same interceptor and filter, and publishes the
 * reply in Nest's wire format, so requesters cannot tell the two paths apart.
 */
export class GatewayNatsServer extends ServerNats {
  private inFlight = 0;
  private idle: (() => void) | null = null;
  private readonly gatewaySubscriptions: Subscription[] = [];
  /** Requests whose last reply is not published yet, and what to call once it is. */
  private readonly awaitingReply = new Map<Msg, () => void>();
  /** Messages Nest's handleMessage took as requests (it made their reply's publisher): only these are answered. */
  private readonly answering = new Set<Msg>();
  private observed: { metrics: Metrics; logger: AppLogger } | null = null;
  private shedSinceLog = 0;
  private shedLoggedAt = -Infinity;
  private direct: DirectDispatch | null = null;

  constructor(private readonly serverOptions: GatewayNatsServerOptions) {
    super({
      servers: serverOptions.servers,
      ...(serverOptions.tls ? { tls: serverOptions.tls } : {}),
      name: serverOptions.name,
      queue: serverOptions.queue,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      waitOnFirstConnect: true,
    });
  }

  override bindEvents(client: NatsConnection): void {
    for (const pattern of this.messageHandlers.keys()) {
      const handle = this.getMessageHandler(pattern);
      const direct = this.direct?.handlers.get(pattern);
      const subscription = client.subscribe(`${this.serverOptions.subjectPrefix}${pattern}`, {
        queue: this.serverOptions.queue,
        callback: (error, message) => {
          // A message without a reply subject (an event: the gateway sends none) has nobody
          // to refuse to. With an error (a subscription NATS refused) there is no message, only
          // nats.js's empty placeholder: neither refused nor read as a packet, it takes Nest's
          // path, whose handler logs the error.
          if (!error && message.reply && this.inFlight >= this.serverOptions.maxInFlight) {
            this.refuse(pattern, message);
            return;
          }
          this.inFlight++;
          const packet = !error && direct ? requestPacketOf(message) : null;
          const over = packet && direct ? this.handleDirectly(pattern, message, packet, direct) : this.handleThroughNest(handle, error, message);
          void over.finally(() => this.settle());
        },
      });
      this.gatewaySubscriptions.push(subscription);
    }
  }

  /**
   * Requests on these subjects are handled without Nest's pipeline, from the next `listen`
   * (bootstrap passes the app's directMessageHandlers, after init and before the server starts).
   */
  dispatchDirectly(direct: DirectDispatch): void {
    this.direct = direct;
  }

  /**
   * Where refusals are counted and logged (the app's Metrics and logger, once it is created), and
   * where the handlers running are published against the cap, read when Prometheus scrapes: how
   * close the service runs to shedding, which the shed counter shows only once it sheds.
   */
  observeWith(metrics: Metrics, logger: AppLogger): void {
    this.observed = { metrics, logger };
    metrics.sampledGauge(
      'gateway_messages_in_flight',
      "Requests the service's NATS server is handling now; at gateway_messages_max_in_flight it refuses more (gateway_messages_shed_total).",
      () => this.inFlight,
    );
    metrics.sampledGauge(
      'gateway_messages_max_in_flight',
      'Most requests the service handles at once (NATS_MAX_IN_FLIGHT); beyond it, requests are refused unprocessed.',
      () => this.serverOptions.maxInFlight,
    );
  }

  override async close(): Promise<void> {
    const connection = this.connection();
    if (!connection) {
      return;
    }
    // Stop receiving: the remaining replicas of this service take new requests from here on.
    await Promise.allSettled(this.gatewaySubscriptions.map((s) => s.drain()));
    if (this.inFlight > 0) {
      await Promise.race([
        new Promise<void>((resolve) => (this.idle = resolve)),
        new Promise<void>((resolve) => setTimeout(resolve, this.serverOptions.drainTimeoutMs).unref()),
      ]);
    }
    await connection.drain().catch(() => connection.close());
    await super.close();
  }

  /**
   * Nest's publisher (the packet, its id set, through the serializer) publishing through
   * `respond`, so that a reply over max_payload goes in parts on this path too.
   */
  override getPublisher(message: Msg, id: string): (response: { isDisposed?: boolean; status?: string }) => unknown {
    this.answering.add(message);
    const publish = message.reply
      ? (response: object) => this.respond(message, Object.assign(response, { id }) as { id: string; isDisposed: boolean })
      : () => undefined;
    return (response: { isDisposed?: boolean; status?: string }) => {
      try {
        return publish(response);
      } catch (err) {
        if (!isUnsendable(err)) {
          throw err;
        }
        // A reply over NATS_MAX_REPLY_BYTES or JSON cannot hold: its failure instead,
        // as one disposed reply, so the requester is not left to time out.
        return publish({ err: this.unsendable(err), isDisposed: true } as { isDisposed: boolean });
      } finally {
        // Nest marks a request's last reply (a value, an error or completion) as disposed; the
        // answer to a subject without a handler is a lone error.
        if (response.isDisposed || response.status === 'error') {
          this.awaitingReply.get(message)?.();
        }
      }
    };
  }

  /**
   * Nest first parses every incoming subject as JSON (a pattern may be an object) and falls back
   * on the SyntaxError thrown: an Error, with its stack trace, per message. The gateway's
   * patterns are all subject strings, so a subject is its own route.
   */
  protected override getRouteFromPattern(pattern: string): string {
    return this.normalizePattern(pattern);
  }

  /** The live connection, for readiness checks. */
  connection(): NatsConnection | null {
    try {
      return this.unwrap<NatsConnection>();
    } catch {
      return null;
    }
  }

  /**
   * Answers at once, in Nest's reply packet, that the request was not acted on: the requester
   * answers SERVER_BUSY and releases what it reserved. NATS does not offer the request to
   * another replica; the merchant's retry (same transaction id) may reach one.
   */
  private refuse(pattern: string, message: Msg): void {
    this.observed?.metrics.messagesShed.inc({ subject: pattern });
    this.shedSinceLog++;
    const now = Date.now();
    if (now - this.shedLoggedAt >= SHED_LOG_INTERVAL_MS) {
      this.observed?.logger.warn(
        { subject: pattern, maxInFlight: this.serverOptions.maxInFlight, refusedSinceLastLine: this.shedSinceLog },
        'refusing requests unprocessed: too many in flight',
      );
      this.shedLoggedAt = now;
      this.shedSinceLog = 0;
    }
    void Promise.resolve(this.deserializer.deserialize(message))
      .then((packet) => {
        const id = 'id' in packet ? packet.id : '';
        const reply = this.serializer.serialize({ id, err: notActedOnReply(), isDisposed: true });
        message.respond(reply.data, { headers: reply.headers });
      })
      .catch(() => undefined);
  }

  /**
   * Resolves once the request is over: once its last reply is published, not when `handle`
   * returns (a handler behind an interceptor runs when Nest subscribes to its reply, after that).
   * Closing before would drop the reply and tear the database down under the handler. A message
   * Nest handled as an event (no packet id: a bare payload, as a NATS tool sends it) gets no
   * reply although it has a reply subject: it is over when `handle` returns, or its place under
   * the in-flight cap would be held for ever.
   */
  private async handleThroughNest(handle: ReturnType<ServerNats['getMessageHandler']>, error: Error | null, message: Msg): Promise<void> {
    const replied = new Promise<void>((resolve) => this.awaitingReply.set(message, resolve));
    try {
      await handle.call(this, error, message);
      if (message.reply && this.answering.has(message)) {
        await replied;
      }
    } catch {
      // Nest's handler logs what it could not handle.
    } finally {
      this.awaitingReply.delete(message);
      this.answering.delete(message);
    }
  }

  /**
   * What Nest's handleMessage, handleRequest and send do for a request, without their
   * observables: the handler's value or its error through the exception filter, as one reply
   * packet (`isDisposed`) through Nest's serializer. Resolves once the reply is published.
   */
  private async handleDirectly(pattern: string, message: Msg, packet: RequestPacket, handler: DirectHandler): Promise<void> {
    const { interceptor, filter } = this.direct!;
    try {
      const reply = await interceptor.handleDirectly(pattern, packet.data, () => answerOf(handler(packet.data)), (outcome: DirectOutcome) =>
        outcome.failed ? { err: filter.toWireError(outcome.err), isDisposed: true, id: packet.id } : { response: outcome.response, isDisposed: true, id: packet.id },
      );
      try {
        this.respond(message, reply);
      } catch (err) {
        if (!isUnsendable(err)) {
          throw err;
        }
        // A reply over NATS_MAX_REPLY_BYTES or JSON cannot hold (a BigInt): the requester gets
        // its failure at once (SERVER_FAILED, logged with a support code) instead
        // of waiting out its timeout, as the in-process bus answers it.
        this.respond(message, { err: this.unsendable(err), isDisposed: true, id: packet.id });
      }
    } catch (err) {
      // As Nest's send: a reply that cannot be made or published is logged, not thrown.
      this.logger.error(err);
    }
  }

  private respond(message: Msg, reply: { id: string; isDisposed: boolean; err?: unknown; response?: unknown }): void {
    const outgoing = this.serializer.serialize(reply) as { data: string | Uint8Array; headers?: MsgHdrs };
    try {
      message.respond(outgoing.data, { headers: outgoing.headers });
    } catch (err) {
      // Only a reply nats.js refused for its size pays for this; every other reply is published
      // as it was before replies had parts.
      const maxPayload = this.connection()?.info?.max_payload;
      if (!isOverMaxPayload(err) || !maxPayload) {
        throw err;
      }
      publishInParts(message, outgoing.data, outgoing.headers, maxPayload, this.serverOptions.maxReplyBytes ?? DEFAULT_NATS_MAX_REPLY_BYTES);
    }
  }

  /**
   * The wire error answering a reply that could not be sent: the exception filter's SERVER_FAILED
   * (logged with its support code), or the same without the filter (before dispatchDirectly).
   */
  private unsendable(err: unknown): WireError {
    if (this.direct) {
      return this.direct.filter.toWireError(err);
    }
    const supportCode = newSupportCode();
    (this.observed?.logger ?? this.logger).error({ supportCode, err }, 'reply not sent');
    return GatewayError.serverFailed(supportCode).toWire();
  }

  private settle(): void {
    this.inFlight--;
    if (this.inFlight === 0 && this.idle) {
      this.idle();
      this.idle = null;
    }
  }
}

/** nats.js's refusal of a payload over the server's max_payload. */
function isOverMaxPayload(err: unknown): boolean {
  return err instanceof Error && err.name === 'InvalidArgumentError' && err.message.includes('max_payload');
}

/**
 * A reply refused for what it holds, not for the connection (closed or draining: nothing can be
 * answered then): JSON cannot hold it (a BigInt, a cycle: TypeError), or nats.js will not publish
 * it (over NATS_MAX_REPLY_BYTES, as publishInParts throws it: InvalidArgumentError).
 */
function isUnsendable(err: unknown): boolean {
  return err instanceof TypeError || (err instanceof Error && err.name === 'InvalidArgumentError');
}

/**
 * The request packet of a message the direct dispatch can answer, or null for what it leaves to
 * Nest (which also logs what it cannot read): no reply subject, not JSON, an event (no id), or
 * not a packet of Nest's client.
 */
function requestPacketOf(message: Msg): RequestPacket | null {
  if (!message.reply) {
    return null;
  }
  let packet: unknown;
  try {
    packet = message.json();
  } catch {
    return null;
  }
  if (typeof packet !== 'object' || packet === null) {
    return null;
  }
  const { id, data, pattern } = packet as { id?: unknown; data?: unknown; pattern?: unknown };
  return typeof id === 'string' && (data !== undefined || pattern !== undefined) ? { id, data } : null;
}

/**
 * A handler's answer; the gateway's handlers return a value or a promise, never a stream. An
 * Observable, returned or resolved by the handler's promise, is refused (SERVER_FAILED, logged by
 * the filter): awaited as a value, it would be serialized as an object and answered as the
 * response, where Nest would have sent each of its values as a reply of its own. A promise's
 * resolved type is not known before it resolves, so this cannot be refused at startup.
 */
async function answerOf(result: unknown): Promise<unknown> {
  // An Observable is no thenable: awaited, a returned one comes back as it is, so one check sees both.
  const answer: unknown = await result;
  if (isObservable(answer)) {
    throw new Error('a handler dispatched directly returned an Observable');
  }
  return answer;
}
