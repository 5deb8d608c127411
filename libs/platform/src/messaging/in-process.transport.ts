import {
  ClientProxy,
  CustomTransportStrategy,
  MessageHandler,
  ReadPacket,
  Server,
  WritePacket,
} from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import { DEFAULT_NATS_MAX_REPLY_BYTES } from '../config/platform.config';
import { withinDeadline } from './deadline';
import { transportFailure } from './transport-failure';
import type { RequestReplyClient } from './message-bus';

type Dispatch = (data: unknown) => Promise<unknown>;

/** A subject's handler, and the largest reply its server sends (NATS_MAX_REPLY_BYTES). */
interface Route {
  dispatch: Dispatch;
  maxReplyBytes: number;
}

/**
 * The standalone profile's message bus: the same subjects, payloads and error semantics as
 * NATS, inside one process. Payloads are copied through JSON both ways, exactly as they
 * would be serialised on the wire, so code that works here cannot rely on sharing objects, and
 * a packet NATS would refuse for its size is refused here too: a request over max_payload, a reply
 * over its server's NATS_MAX_REPLY_BYTES (NATS carries a reply between the two in parts; here it
 * arrives whole, as the requester on NATS reads it).
 * It is for trying the gateway on a laptop and for fast tests, never for production.
 */
export class InProcessBus {
  private readonly routes = new Map<string, Route>();

  /** `maxPayloadBytes`: the largest message it carries, as NATS's max_payload. */
  constructor(private readonly maxPayloadBytes: number = NATS_MAX_PAYLOAD_BYTES) {}

  /** `maxReplyBytes`: the largest reply `dispatch`'s answer may be, as its server's NATS_MAX_REPLY_BYTES. */
  register(subject: string, dispatch: Dispatch, maxReplyBytes: number = DEFAULT_NATS_MAX_REPLY_BYTES): void {
    this.routes.set(subject, { dispatch, maxReplyBytes });
  }

  unregister(subject: string): void {
    this.routes.delete(subject);
  }

  has(subject: string): boolean {
    return this.routes.has(subject);
  }

  async request(subject: string, data: unknown): Promise<unknown> {
    const route = this.routes.get(subject);
    if (!route) {
      throw transportFailure('NoResponders', `no responders for ${subject}`);
    }
    const request = onTheWire({ pattern: subject, data, id: REQUEST_ID }, this.maxPayloadBytes).data;
    const reply = await route.dispatch(request);
    return onTheWire({ id: REQUEST_ID, response: reply, isDisposed: true }, route.maxReplyBytes).response;
  }
}

/**
 * The packet as the other side reads it: through JSON, in Nest's NATS packet, refused over
 * `maxBytes` as NATS refuses it (before anything is sent; over NATS, a reply too large is answered
 * SERVER_FAILED by the service's server, here the requester's MessageBus does).
 */
function onTheWire<T extends object>(packet: T, maxBytes: number): T {
  const json = JSON.stringify(packet);
  if (Buffer.byteLength(json) > maxBytes) {
    throw Object.assign(new Error(`'payload' of ${maxBytes} bytes at most exceeded`), { name: 'InvalidArgumentError' });
  }
  return JSON.parse(json) as T;
}

/**
 * The largest message a NATS server takes unless configured otherwise (its `max_payload`, 1 MiB),
 * which no deployment here changes: a message the distributed gateway cannot send is not sent in
 * standalone either.
 */
export const NATS_MAX_PAYLOAD_BYTES = 1024 * 1024;

/** The packet id the in-process bus's packets carry, for their size (GatewayNatsClient's count up: a few bytes more at most). */
const REQUEST_ID = '1';

function wireCopy<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/**
 * Registers the app's message handlers on the bus. No in-flight cap as GatewayNatsServer's: the
 * standalone process has one server for every service, so one count would hold a request's own
 * nested requests (edge, ledger, vault) and, at the cap, refuse the inner hops of the requests
 * it admitted (docs/decisions/load-shedding.md).
 */
export class InProcessServer extends Server implements CustomTransportStrategy {
  private readonly subjects: string[] = [];
  /** Requests being handled: `close` waits for them, as GatewayNatsServer's drain does. */
  private inFlight = 0;
  private idle: (() => void) | undefined;

  /**
   * `drainTimeoutMs`: how long `close` waits for the requests in flight (the shutdown grace).
   * `maxReplyBytes`: the largest reply it sends (NATS_MAX_REPLY_BYTES).
   */
  constructor(
    private readonly bus: InProcessBus,
    private readonly drainTimeoutMs: number,
    private readonly maxReplyBytes: number = DEFAULT_NATS_MAX_REPLY_BYTES,
  ) {
    super();
  }

  listen(callback: () => void): void {
    for (const [pattern, handler] of this.messageHandlers) {
      this.subjects.push(pattern);
      this.bus.register(pattern, async (data) => {
        this.inFlight += 1;
        try {
          return await this.handle(handler, data);
        } finally {
          this.inFlight -= 1;
          if (this.inFlight === 0) {
            this.idle?.();
          }
        }
      }, this.maxReplyBytes);
    }
    callback();
  }

  private async handle(handler: MessageHandler, data: unknown): Promise<unknown> {
    const result$ = this.transformToObservable(await handler(data));
    try {
      return await lastValueFrom(result$);
    } catch (err) {
      // Exception filters turn errors into their wire form; rethrow that form as-is.
      throw wireCopy(err);
    }
  }

  /**
   * Finishes the requests in flight before the app's database connections close after it: a
   * ledger operation whose caller stopped waiting (its deadline passed, the HTTP answer sent)
   * still records what the acquirer did, as order-transaction's NATS server lets it on a drain.
   * Its subjects stay registered meanwhile, so that work's own requests (the vault's card, a
   * provider) are still answered; the HTTP server has closed and the background jobs have
   * stopped before this, so nothing new arrives from outside. Then, or after drainTimeoutMs,
   * the subjects go.
   */
  async close(): Promise<void> {
    if (this.inFlight > 0 && this.drainTimeoutMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => (this.idle = resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, this.drainTimeoutMs))),
      ]);
      clearTimeout(timer);
      this.idle = undefined;
    }
    for (const subject of this.subjects) {
      this.bus.unregister(subject);
    }
  }

  on(): never {
    throw new Error('The in-process transport has no events.');
  }

  unwrap<T>(): T {
    return this.bus as T;
  }
}

/** The client side: what the edge and services use to send requests in standalone. */
export class InProcessClient extends ClientProxy implements RequestReplyClient {
  constructor(private readonly bus: InProcessBus) {
    super();
  }

  async connect(): Promise<void> {}

  async close(): Promise<void> {}

  /** As on NATS: the reply, the service's error as it sent it, NoResponders, or a TimeoutError. */
  request(subject: string, data: unknown, timeoutMs: number): Promise<unknown> {
    return withinDeadline(this.bus.request(subject, data), timeoutMs, subject);
  }

  protected publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    this.bus.request(this.normalizePattern(packet.pattern), packet.data).then(
      (response) => callback({ response, isDisposed: true }),
      (err: unknown) => callback({ err, isDisposed: true }),
    );
    return () => undefined;
  }

  protected async dispatchEvent<T = unknown>(packet: ReadPacket): Promise<T> {
    return (await this.bus.request(this.normalizePattern(packet.pattern), packet.data)) as T;
  }

  override on(): never {
    throw new Error('The in-process transport has no events.');
  }

  override unwrap<T>(): T {
    return this.bus as T;
  }
}
