import { NatsContext, ServerNats } from '@nestjs/microservices';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import type { AppLogger } from '../logging';
import type { Metrics } from '../metrics';
import { notActedOnReply, type NatsTls } from './message-bus';

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
}

/** Refusals are logged at most this often, with their count since: under overload they come by the thousand. */
const SHED_LOG_INTERVAL_MS = 10_000;

/**
 * Nest's NATS server with what production needs around it: the subject prefix, a queue group
 * per service, and a graceful close that stops taking new requests, lets in-flight ones
 * answer, then drains the connection (Nest's own close drops them). A request arriving while
 * `maxInFlight` handlers run is refused at once, before any work (SERVER_BUSY, not acted on), so
 * a backlog the database cannot serve cannot grow until the heap runs out.
 */
export class GatewayNatsServer extends ServerNats {
  private inFlight = 0;
  private idle: (() => void) | null = null;
  private readonly gatewaySubscriptions: Subscription[] = [];
  /** Requests whose last reply is not published yet, and what to call once it is. */
  private readonly awaitingReply = new Map<Msg, () => void>();
  private observed: { metrics: Metrics; logger: AppLogger } | null = null;
  private shedSinceLog = 0;
  private shedLoggedAt = -Infinity;

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
      const subscription = client.subscribe(`${this.serverOptions.subjectPrefix}${pattern}`, {
        queue: this.serverOptions.queue,
        callback: (error, message) => {
          // A message without a reply subject (an event: the gateway sends none) has nobody
          // to refuse to.
          if (!error && message.reply && this.inFlight >= this.serverOptions.maxInFlight) {
            this.refuse(pattern, message);
            return;
          }
          this.inFlight++;
          const replied = new Promise<void>((resolve) => this.awaitingReply.set(message, resolve));
          // A request is over once its last reply is published, not when `handle` returns: a
          // handler behind an interceptor runs when Nest subscribes to its reply, after that.
          // Closing before would drop the reply and tear the database down under the handler.
          void Promise.resolve(handle.call(this, error, message))
            .then(
              () => (message.reply ? replied : undefined),
              () => undefined,
            )
            .finally(() => {
              this.awaitingReply.delete(message);
              this.settle();
            });
        },
      });
      this.gatewaySubscriptions.push(subscription);
    }
  }

  /** Where refusals are counted and logged (the app's Metrics and logger, once it is created). */
  observeWith(metrics: Metrics, logger: AppLogger): void {
    this.observed = { metrics, logger };
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

  override getPublisher(message: Msg, id: string, context: NatsContext): (response: { isDisposed?: boolean; status?: string }) => unknown {
    const publish = super.getPublisher(message as never, id, context);
    return (response: { isDisposed?: boolean; status?: string }) => {
      try {
        return publish(response);
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

  private settle(): void {
    this.inFlight--;
    if (this.inFlight === 0 && this.idle) {
      this.idle();
      this.idle = null;
    }
  }
}
