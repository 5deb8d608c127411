import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { exposeGc, oldSpaceUsed } from '../test-support';
import { ReplyInbox } from './reply-inbox';

/** A connection that records the reply subject of each request and delivers replies to the inbox. */
function loopbackConnection() {
  const replySubjects: string[] = [];
  let deliver: (msg: Msg) => void = () => undefined;
  const connection = {
    subscribe: (_subject: string, options: { callback: (err: Error | null, msg: Msg) => void }) => {
      deliver = (msg) => options.callback(null, msg);
      return { closed: new Promise<void>(() => undefined) };
    },
    publish: (_subject: string, _data: unknown, options: { reply: string }) =>
      replySubjects.push(options.reply),
  } as unknown as NatsConnection;
  const replyToOldest = (payload: unknown) =>
    deliver({ subject: replySubjects.shift(), data: new Uint8Array(1), payload } as unknown as Msg);
  return { connection, replyToOldest };
}

describe('ReplyInbox memory', () => {
  it('lets the replies it delivered die young: scavenges do not promote them to the old generation', async () => {
    const gc = exposeGc();
    const { connection, replyToOldest } = loopbackConnection();
    const inbox = new ReplyInbox(connection);
    // The inbox and what it holds are old by now, as in a service that has run a while.
    gc({ type: 'major', execution: 'sync' });
    gc({ type: 'major', execution: 'sync' });
    const before = oldSpaceUsed();

    // 2,000 requests, four in flight at a time as under load, each reply with 4 KB of young objects.
    let answered = 0;
    for (let i = 0; i < 2_000; i++) {
      void inbox.request('svc.v1', '{}', undefined, 60_000).then(() => answered++);
      if (i >= 3) {
        replyToOldest(new Array(512).fill(i));
      }
    }
    for (let i = 0; i < 3; i++) {
      replyToOldest(null);
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(2_000);
    gc({ type: 'minor', execution: 'sync' });
    gc({ type: 'minor', execution: 'sync' });

    expect(oldSpaceUsed() - before).toBeLessThan(1_000_000);
  });
});
