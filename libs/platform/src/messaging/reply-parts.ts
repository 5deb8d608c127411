import { headers as newHeaders, type Msg, type MsgHdrs, type ReviverFn } from '@nats-io/transport-node';
import { transportFailure } from './transport-failure';

/**
 * A reply over the connection's max_payload travels as parts, each a message of its own to the
 * request's reply subject, published in order, every one with this header: `<index>/<count>`,
 * counted from 1 (`Gateway-Reply-Part: 2/5`). The parts' payloads, concatenated, are the reply's
 * one payload as it would have been published whole. A reply within max_payload carries no such
 * header (it is published exactly as before: docs/decisions/subject-prefix-and-in-process-bus.md,
 * amendment on replies in parts).
 */
export const REPLY_PART_HEADER = 'Gateway-Reply-Part';

/**
 * Room left in each part for the headers (the part header, and any the reply already had): a
 * part's payload is max_payload less this, less the reply's own headers.
 */
const PART_HEADER_ROOM = 1024;

/**
 * Publishes `data` to `message`'s reply subject in parts of at most `maxPayload` bytes with their
 * headers. A reply over `maxReplyBytes` is not published at all: the error thrown is the one nats.js
 * throws for a payload over max_payload (InvalidArgumentError), so the server answers it as it
 * answers anything it cannot send (SERVER_FAILED).
 */
export function publishInParts(
  message: Msg,
  data: string | Uint8Array,
  headers: MsgHdrs | undefined,
  maxPayload: number,
  maxReplyBytes: number,
): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  if (bytes.length > maxReplyBytes) {
    throw Object.assign(
      new Error(`reply of ${bytes.length} bytes over NATS_MAX_REPLY_BYTES (${maxReplyBytes})`),
      { name: 'InvalidArgumentError' },
    );
  }
  const partBytes = maxPayload - PART_HEADER_ROOM - (headers ? headerBytes(headers) : 0);
  const count = Math.ceil(bytes.length / partBytes);
  for (let index = 1; index <= count; index++) {
    const partHeaders = newHeaders();
    if (headers) {
      for (const key of headers.keys()) {
        for (const value of headers.values(key)) {
          partHeaders.append(key, value);
        }
      }
    }
    partHeaders.set(REPLY_PART_HEADER, `${index}/${count}`);
    message.respond(bytes.subarray((index - 1) * partBytes, index * partBytes), { headers: partHeaders });
  }
}

/** What `headers` add to a message, as `Key: value\r\n` lines. */
function headerBytes(headers: MsgHdrs): number {
  let bytes = 0;
  for (const key of headers.keys()) {
    for (const value of headers.values(key)) {
      bytes += Buffer.byteLength(`${key}: ${value}\r\n`);
    }
  }
  return bytes;
}

/**
 * The parts of one reply as the requester receives them, until the last. NATS delivers one
 * publisher's messages to a subscriber in order, so part `n` follows part `n - 1`: a part out of
 * that order is a part lost (a slow consumer's dropped message) or sent twice, and the reply
 * fails at once rather than at its timeout.
 */
export class ReplyParts {
  private readonly parts: Uint8Array[] = [];
  private count = 0;
  private bytes = 0;

  /** `maxReplyBytes`: the most the parts may hold together (what the requester keeps in memory). */
  constructor(
    private readonly subject: string,
    private readonly maxReplyBytes: number,
  ) {}

  /**
   * Takes the part `msg` (whose REPLY_PART_HEADER is `part`): undefined while parts are still to
   * come, the whole reply after the last, or the failure (a RequestError) of a part out of order,
   * out of range, or beyond maxReplyBytes.
   */
  add(part: string, msg: Msg): Msg | Error | undefined {
    const match = /^(\d{1,6})\/(\d{1,6})$/.exec(part);
    const index = match ? Number(match[1]) : 0;
    const count = match ? Number(match[2]) : 0;
    if (index < 1 || count < 2 || index > count || (this.count !== 0 && count !== this.count)) {
      return this.failure(`part ${part} out of range${this.count === 0 ? '' : ` of ${this.count}`}`);
    }
    if (index !== this.parts.length + 1) {
      return this.failure(
        index <= this.parts.length
          ? `part ${part} received twice`
          : `part ${this.parts.length + 1}/${count} missing`,
      );
    }
    this.bytes += msg.data.length;
    if (this.bytes > this.maxReplyBytes) {
      return this.failure(`reply over ${this.maxReplyBytes} bytes`);
    }
    this.count = count;
    this.parts.push(msg.data);
    return index === count ? new WholeReply(msg, Buffer.concat(this.parts, this.bytes)) : undefined;
  }

  private failure(what: string): Error {
    return transportFailure('RequestError', `reply from ${this.subject} in parts: ${what}`);
  }
}

/** A reply put together from its parts: what the decoding of a reply received whole reads (`json()`, `data`). */
class WholeReply implements Msg {
  readonly subject: string;
  readonly sid: number;
  readonly headers?: MsgHdrs;

  constructor(
    last: Msg,
    readonly data: Uint8Array,
  ) {
    this.subject = last.subject;
    this.sid = last.sid;
    this.headers = last.headers;
  }

  respond(): boolean {
    return false;
  }

  json<T>(reviver?: ReviverFn): T {
    return JSON.parse(this.string(), reviver) as T;
  }

  string(): string {
    return Buffer.from(this.data.buffer, this.data.byteOffset, this.data.byteLength).toString('utf8');
  }
}
