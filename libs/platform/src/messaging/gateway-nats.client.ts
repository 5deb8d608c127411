import { ClientNats, ReadPacket, WritePacket } from '@nestjs/microservices';
import type { MsgHdrs, NatsConnection } from '@nats-io/transport-node';
import { withinDeadline } from './deadline';
import type { NatsTls, RequestReplyClient } from './message-bus';
import { ReplyInbox } from './reply-inbox';
import { refusedToSend, transportFailure } from './transport-failure';

export interface GatewayNatsClientOptions {
  servers: string[];
  /** TLS the connection insists on (MessagingOptions.tls). */
  tls?: NatsTls | null;
  name: string;
  requestTimeoutMs: number;
  /** The largest reply accepted, in parts (NATS_MAX_REPLY_BYTES); unset: its default. */
  maxReplyBytes?: number;
}

/**
 * Nest's NATS client subscribes a fresh inbox per request and cannot tell "nobody serves
 * this subject" from a slow service. This one sends requests through one shared (muxed) inbox
 * subscription (ReplyInbox), with an immediate no-responders error when no instance of the
 * service is up, so the edge answers SERVER_BUSY at once instead of after the timeout.
 */
export class GatewayNatsClient extends ClientNats implements RequestReplyClient {
  private lastId = 0;
  private inbox: ReplyInbox | null = null;

  constructor(private readonly clientOptions: GatewayNatsClientOptions) {
    super({
      servers: clientOptions.servers,
      ...(clientOptions.tls ? { tls: clientOptions.tls } : {}),
      name: clientOptions.name,
      // Keep trying forever: a NATS restart must not leave the process disconnected.
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      waitOnFirstConnect: true,
    });
  }

  /**
   * One request and its one reply, as a promise: what MessageBus sends. It skips ClientProxy's
   * observable (and Nest's random packet ids), which cost each hop a few per cent of its CPU
   * (docs/performance.md). Wire format and errors are Nest's own: the reply's `err` is thrown
   * as the service sent it; transport failures are ReplyInbox's.
   */
  async request(subject: string, data: unknown, timeoutMs: number): Promise<unknown> {
    // Connected: the connection at hand. Not yet (NATS was away at start): waiting for it counts
    // against the request's time, as nats.js's reconnect buffering does once connected; a request
    // still unconnected when its time is up was never sent.
    const connection = (this.natsClient ?? (await this.connectWithin(timeoutMs, subject))) as unknown as NatsConnection;
    if (!this.inbox?.servesConnection(connection)) {
      try {
        this.inbox = new ReplyInbox(connection, this.clientOptions.maxReplyBytes);
      } catch (err) {
        throw refusedToSend(err);
      }
    }
    this.lastId = (this.lastId + 1) % Number.MAX_SAFE_INTEGER;
    const serialized = this.serializer.serialize({ pattern: subject, data, id: String(this.lastId) }) as { data: string | Uint8Array; headers?: MsgHdrs };
    const msg = await this.inbox.request(subject, serialized.data, serialized.headers, timeoutMs);
    const reply = (await this.deserializer.deserialize(msg)) as WritePacket;
    if (reply.err) {
      throw reply.err;
    }
    return reply.response;
  }

  private async connectWithin(timeoutMs: number, subject: string): Promise<unknown> {
    try {
      return await withinDeadline(this.connect(), timeoutMs, subject);
    } catch (err) {
      throw err instanceof Error && err.name === 'TimeoutError' ? transportFailure('NotSent', `not sent: NATS not reached within ${timeoutMs} ms`, err) : err;
    }
  }

  /** ClientProxy's `send`, for code that uses the client as Nest's: the same request. */
  protected override publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    let active = true;
    this.request(this.normalizePattern(packet.pattern), packet.data, this.clientOptions.requestTimeoutMs).then(
      (response) => active && callback({ response, isDisposed: true }),
      (err: unknown) => active && callback({ err, isDisposed: true }),
    );
    return () => {
      active = false;
    };
  }
}
