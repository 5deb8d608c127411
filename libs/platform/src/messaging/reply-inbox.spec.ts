import { headers, type Msg, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { ReplyInbox } from './reply-inbox';
import { REPLY_PART_HEADER } from './reply-parts';

/** A connection whose inbox subscription closes when `closeSubscription` is called. */
function fakeConnection() {
  let closeSubscription: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (closeSubscription = resolve));
  const connection = { subscribe: () => ({ closed }), publish: jest.fn() } as unknown as NatsConnection;
  return { connection, closeSubscription: () => closeSubscription() };
}

describe('ReplyInbox', () => {
  it('fails the requests waiting when its subscription closes, and serves the connection no more', async () => {
    const { connection, closeSubscription } = fakeConnection();
    const inbox = new ReplyInbox(connection);
    const waiting = inbox.request('svc.v1', '{}', undefined, 5_000);
    expect(inbox.servesConnection(connection)).toBe(true);

    closeSubscription();

    await expect(waiting).rejects.toMatchObject({ name: 'ClosedConnectionError' });
    expect(inbox.servesConnection(connection)).toBe(false);
  });

  it('does not serve another connection', () => {
    expect(new ReplyInbox(fakeConnection().connection).servesConnection(fakeConnection().connection)).toBe(false);
  });
});

describe('ReplyInbox, a reply in parts (reply-parts.ts)', () => {
  /** An inbox on a fake connection, with what its requests published and a way to deliver to its subscription. */
  function inboxWithDelivery(maxReplyBytes?: number) {
    let deliver: (msg: Msg) => void = () => undefined;
    const publish = jest.fn();
    const connection = {
      subscribe: (_subject: string, options: { callback: (err: Error | null, msg: Msg) => void }) => {
        deliver = (msg) => options.callback(null, msg);
        return { closed: new Promise(() => undefined) };
      },
      publish,
    } as unknown as NatsConnection;
    const inbox = new ReplyInbox(connection, maxReplyBytes);
    /** The `n`th request's reply subject. */
    const replySubject = (n = 0) => (publish.mock.calls[n] as [string, unknown, { reply: string }])[2].reply;
    /** A message to the `n`th request's reply subject, as one part (`part`: `index/count`) or whole (no part). */
    const reply = (text: string, part?: string, n = 0): Msg => {
      const data = Buffer.from(text);
      let hdrs: MsgHdrs | undefined;
      if (part !== undefined) {
        hdrs = headers();
        hdrs.set(REPLY_PART_HEADER, part);
      }
      return { subject: replySubject(n), sid: 1, data, headers: hdrs, respond: () => false, json: () => JSON.parse(text), string: () => text } as Msg;
    };
    return { inbox, deliver: (msg: Msg) => deliver(msg), reply };
  }

  it('resolves once the last part is in, with the parts put together as one message the decoding reads; an ordinary reply as it came', async () => {
    const { inbox, deliver, reply } = inboxWithDelivery();
    const request = inbox.request('svc.v1', '{}', undefined, 5_000);
    let settled = false;
    void request.then(() => (settled = true));
    // A part boundary may fall inside a character: the bytes are put together before decoding.
    const whole = Buffer.from(JSON.stringify({ id: '1', response: 'día', isDisposed: true }));
    const cut = whole.indexOf('í') + 1;
    deliver({ ...reply('', '1/3'), data: whole.subarray(0, cut) });
    deliver({ ...reply('', '2/3'), data: whole.subarray(cut, cut + 3) });
    await Promise.resolve();
    expect(settled).toBe(false);
    deliver({ ...reply('', '3/3'), data: whole.subarray(cut + 3) });
    const msg = await request;
    expect(msg.json()).toEqual({ id: '1', response: 'día', isDisposed: true });
    expect(Buffer.from(msg.data).equals(whole)).toBe(true);

    // An ordinary reply (no headers) is still the message itself.
    const next = inbox.request('svc.v1', '{}', undefined, 5_000);
    const ordinary = reply('{"id":"2","response":1,"isDisposed":true}', undefined, 1);
    deliver(ordinary);
    await expect(next).resolves.toBe(ordinary);
  });

  it.each([
    ['a part received twice', ['1/3', '1/3'], /part 1\/3 received twice/],
    ['a part missing (the next one arrives first)', ['1/3', '3/3'], /part 2\/3 missing/],
    ['a first part that is not the first', ['2/3'], /part 1\/3 missing/],
    ['an index over the count', ['1/2', '3/2'], /part 3\/2 out of range/],
    ['an index of 0', ['0/2'], /part 0\/2 out of range/],
    ['a count that changes', ['1/3', '2/4'], /part 2\/4 out of range of 3/],
    ['a count of 1', ['1/1'], /out of range/],
    ['a header that is no index/count', ['one of two'], /out of range/],
  ])('fails at once (RequestError) on %s, and ignores what follows', async (_what, parts, message) => {
    const { inbox, deliver, reply } = inboxWithDelivery();
    const request = inbox.request('svc.v1', '{}', undefined, 5_000);
    const started = Date.now();
    for (const part of parts) {
      deliver(reply('x', part));
    }
    await expect(request).rejects.toMatchObject({ name: 'RequestError', message: expect.stringMatching(message) });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(() => deliver(reply('x', '2/3'))).not.toThrow();
  });

  it('fails at the request\'s timeout when the last part never comes: the timeout covers every part', async () => {
    const { inbox, deliver, reply } = inboxWithDelivery();
    const started = Date.now();
    const request = inbox.request('svc.v1', '{}', undefined, 100);
    deliver(reply('x', '1/2'));
    await expect(request).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(95);
  });

  it('fails once the parts hold more than its NATS_MAX_REPLY_BYTES, without waiting for the rest', async () => {
    const { inbox, deliver, reply } = inboxWithDelivery(10);
    const request = inbox.request('svc.v1', '{}', undefined, 5_000);
    deliver(reply('123456', '1/3'));
    deliver(reply('123456', '2/3'));
    await expect(request).rejects.toMatchObject({ name: 'RequestError', message: expect.stringMatching(/over 10 bytes/) });
  });

  it('keeps the parts of concurrent requests apart', async () => {
    const { inbox, deliver, reply } = inboxWithDelivery();
    const first = inbox.request('svc.v1', '{}', undefined, 5_000);
    const second = inbox.request('svc.v1', '{}', undefined, 5_000);
    deliver(reply('"a', '1/2', 0));
    deliver(reply('"b', '1/2', 1));
    deliver(reply('b"', '2/2', 1));
    deliver(reply('a"', '2/2', 0));
    expect((await first).json()).toBe('aa');
    expect((await second).json()).toBe('bb');
  });
});
