import { createInbox, type Msg, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { DEFAULT_NATS_MAX_REPLY_BYTES } from '../config/platform.config';
import { REPLY_PART_HEADER, ReplyParts } from './reply-parts';
import { refusedToSend, transportFailure } from './transport-failure';

interface Waiting {
  readonly subject: string;
  readonly resolve: (msg: Msg) => void;
  readonly reject: (err: Error) => void;
  readonly timer: NodeJS.Timeout;
  /** The parts received of a reply sent in parts (reply-parts.ts); null until its first. */
  parts: ReplyParts | null;
}

/**
 * Request-reply over one connection through one wildcard inbox subscription, as nats.js's own
 * request does, minus its costs on the way: nats.js builds a RequestError (a stack trace) for
 * every request that succeeds, when it cancels the request after the reply, plus a timer
 * promise and a race. Failures are Errors named as MessageBus reads them: NoResponders (no
 * instance serves the subject: never delivered), NotSent (publish refused: the connection was
 * closed), DrainingConnectionError (refused: it is draining), TimeoutError, ClosedConnectionError
 * (the connection closed while the reply was awaited).
 *
 * A reply over max_payload arrives in parts (reply-parts.ts): they are collected under the
 * request's token and the request resolves once the last is in, with them put together as one
 * message; the request's timeout covers them all. A part out of order or range fails the request
 * (RequestError) at once.
 */
export class ReplyInbox {
  private readonly prefix = `${createInbox()}.`;
  /**
   * The requests awaiting their reply, by token. A plain dictionary, not a Map: a Map that entries
   * enter and leave all the time is rebuilt every few requests, and V8 links each table it drops
   * to the next, with the entries it held then. Once one such table sits in the old generation,
   * dead, every scavenge counts it as a root: the chain keeps each request's reply callbacks (and
   * through them the whole awaiting request) alive until a full GC, so they are promoted and
   * fill the old generation (docs/performance.md, "Where the tail's time goes").
   */
  private waiting: Record<string, Waiting> = Object.create(null) as Record<string, Waiting>;
  private lastToken = 0;
  private closed = false;

  /** `maxReplyBytes`: the most the parts of one reply may hold together (NATS_MAX_REPLY_BYTES). */
  constructor(
    private readonly connection: NatsConnection,
    private readonly maxReplyBytes: number = DEFAULT_NATS_MAX_REPLY_BYTES,
  ) {
    const subscription = connection.subscribe(`${this.prefix}*`, {
      callback: (err, msg) => {
        if (!err) {
          this.settle(msg);
        }
      },
    });
    void subscription.closed.then(() => {
      this.closed = true;
      this.failAll(transportFailure('ClosedConnectionError', 'the NATS connection closed before the reply'));
    });
  }

  /**
   * Whether requests on `connection` can go through this inbox: not after the client connected
   * anew, nor once the inbox's subscription has closed (then a new inbox subscribes again).
   */
  servesConnection(connection: NatsConnection): boolean {
    return connection === this.connection && !this.closed;
  }

  request(subject: string, data: string | Uint8Array, headers: MsgHdrs | undefined, timeoutMs: number): Promise<Msg> {
    this.lastToken = (this.lastToken + 1) % Number.MAX_SAFE_INTEGER;
    const token = String(this.lastToken);
    return new Promise<Msg>((resolve, reject) => {
      const timer = setTimeout(() => {
        delete this.waiting[token];
        reject(transportFailure('TimeoutError', `no reply from ${subject} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting[token] = { subject, resolve, reject, timer, parts: null };
      try {
        this.connection.publish(subject, data, { reply: `${this.prefix}${token}`, headers });
      } catch (err) {
        delete this.waiting[token];
        clearTimeout(timer);
        reject(err instanceof Error ? refusedToSend(err) : transportFailure('RequestError', String(err)));
      }
    });
  }

  private settle(msg: Msg): void {
    const token = msg.subject.slice(this.prefix.length);
    const waiting = this.waiting[token];
    if (!waiting) {
      return; // Its time ran out (or a part before failed): the caller has its error already.
    }
    // An ordinary reply has no headers: nats.js answers `headers` without decoding anything then.
    const part = msg.headers?.get(REPLY_PART_HEADER);
    if (part) {
      this.settlePart(token, waiting, part, msg);
      return;
    }
    delete this.waiting[token];
    clearTimeout(waiting.timer);
    // The server's answer when nobody is subscribed: an empty message with status 503.
    if (msg.data.length === 0 && msg.headers?.code === 503) {
      waiting.reject(transportFailure('NoResponders', `no responders for ${waiting.subject}`));
    } else {
      waiting.resolve(msg);
    }
  }

  private settlePart(token: string, waiting: Waiting, part: string, msg: Msg): void {
    waiting.parts ??= new ReplyParts(waiting.subject, this.maxReplyBytes);
    const whole = waiting.parts.add(part, msg);
    if (whole === undefined) {
      return;
    }
    delete this.waiting[token];
    clearTimeout(waiting.timer);
    if (whole instanceof Error) {
      waiting.reject(whole);
    } else {
      waiting.resolve(whole);
    }
  }

  private failAll(err: Error): void {
    const failing = Object.values(this.waiting);
    this.waiting = Object.create(null) as Record<string, Waiting>;
    for (const waiting of failing) {
      clearTimeout(waiting.timer);
      waiting.reject(err);
    }
  }
}
