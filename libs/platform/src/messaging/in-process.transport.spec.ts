import { InProcessBus, InProcessClient, InProcessServer } from './in-process.transport';
import { describeTransportContract, PROBE_MAX_REPLY_BYTES, startTransportProbe } from './testing/transport-contract';

/**
 * The standalone gateway's message server on shutdown: Nest closes it after the HTTP server and
 * before the database connections, so what it waits for is what still gets recorded.
 */
describe('InProcessServer.close', () => {
  function serve(
    bus: InProcessBus,
    drainTimeoutMs: number,
    handlers: Record<string, (data: unknown) => Promise<unknown>>,
  ): InProcessServer {
    const server = new InProcessServer(bus, drainTimeoutMs);
    for (const [subject, handler] of Object.entries(handlers)) {
      server.addHandler(subject, handler);
    }
    server.listen(() => undefined);
    return server;
  }

  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it('finishes the requests in flight first, answering their own requests meanwhile, then its subjects go', async () => {
    const bus = new InProcessBus();
    let acquirerAnswered!: () => void;
    const acquirer = new Promise<void>((resolve) => (acquirerAnswered = resolve));
    const server = serve(bus, 60_000, {
      // A ledger operation whose caller may have stopped waiting: after the acquirer's answer
      // it still needs a request of its own (the vault's card), then records.
      'ledger.refund': async () => {
        await acquirer;
        return { recorded: true, card: await bus.request('vault.reveal', {}) };
      },
      'vault.reveal': async () => 'sealed-card',
    });
    const refund = bus.request('ledger.refund', {});
    await tick();

    let closed = false;
    const closing = Promise.resolve(server.close()).then(() => (closed = true));
    await tick();
    expect(closed).toBe(false);
    expect(bus.has('ledger.refund')).toBe(true);

    acquirerAnswered();
    await expect(refund).resolves.toEqual({ recorded: true, card: 'sealed-card' });
    await closing;
    expect(bus.has('ledger.refund')).toBe(false);
    expect(bus.has('vault.reveal')).toBe(false);
  });

  it('waits no longer than its drain timeout for a request that does not end', async () => {
    const bus = new InProcessBus();
    const server = serve(bus, 50, { 'ledger.refund': () => new Promise(() => undefined) });
    void bus.request('ledger.refund', {});
    await tick();
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(bus.has('ledger.refund')).toBe(false);
  });

  it('closes at once with nothing in flight, and an error answered before still counts as done', async () => {
    const bus = new InProcessBus();
    const server = serve(bus, 60_000, {
      'ledger.refund': async () => {
        throw new Error('refused');
      },
    });
    await expect(bus.request('ledger.refund', {})).rejects.toThrow('refused');
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(bus.has('ledger.refund')).toBe(false);
  });
});

describeTransportContract('in-process', async () => {
  const bus = new InProcessBus();
  const app = await startTransportProbe(new InProcessServer(bus, 1_000, PROBE_MAX_REPLY_BYTES));
  await app.listen();
  return { client: new InProcessClient(bus), subjectPrefix: '', close: () => app.close() };
});
