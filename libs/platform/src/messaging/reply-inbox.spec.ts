import type { NatsConnection } from '@nats-io/transport-node';
import { ReplyInbox } from './reply-inbox';

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
