import { of } from 'rxjs';
import { AllExceptionsFilter } from '../errors';
import { createLogger } from '../logging';
import { Metrics } from '../metrics';
import { GatewayNatsServer } from './gateway-nats.server';
import { RequestContextInterceptor } from './request-context.interceptor';

describe('GatewayNatsServer routing', () => {
  const server = new GatewayNatsServer({ servers: ['nats://127.0.0.1:1'], name: 't', queue: 't', subjectPrefix: '', drainTimeoutMs: 10, maxInFlight: 10 });
  const handler = Object.assign(async () => 'answer', { isEventHandler: false });
  server.addHandler('order-transaction.ledger.record.v1', handler);

  it('finds the handler of a subject without trying the subject as JSON (no SyntaxError thrown per message)', () => {
    const parse = jest.spyOn(JSON, 'parse');
    try {
      expect(server.getHandlerByPattern('order-transaction.ledger.record.v1')).toBe(handler);
      expect(server.getHandlerByPattern('order-transaction.ledger.begin.v1')).toBeNull();
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
  });
});

describe('GatewayNatsServer direct dispatch (docs/decisions/direct-message-dispatch.md)', () => {
  /** The one reply the direct dispatch publishes for `handler`'s answer to a request, and what it logged. */
  async function replyTo(handler: (data: unknown) => unknown): Promise<{ reply: Record<string, unknown>; errors: unknown[][] }> {
    const server = new GatewayNatsServer({ servers: ['nats://127.0.0.1:1'], name: 't', queue: 't', subjectPrefix: '', drainTimeoutMs: 10, maxInFlight: 10 });
    const logger = createLogger({ service: 't', level: 'silent' });
    const errors = jest.spyOn(logger, 'error');
    server.dispatchDirectly({ handlers: new Map([['t.v1', handler]]), interceptor: new RequestContextInterceptor(new Metrics()), filter: new AllExceptionsFilter(logger) });
    const respond = jest.fn();
    const handleDirectly = (server as unknown as { handleDirectly: (...args: unknown[]) => Promise<void> }).handleDirectly.bind(server);
    await handleDirectly('t.v1', { respond }, { id: 'packet-1', data: {} }, handler);
    expect(respond).toHaveBeenCalledTimes(1);
    const [data] = respond.mock.calls[0] as [Uint8Array | string];
    return { reply: JSON.parse(typeof data === 'string' ? data : Buffer.from(data).toString('utf8')), errors: errors.mock.calls };
  }

  it("answers a handler's value, or its promise's, as one reply", async () => {
    expect((await replyTo(() => ({ ok: 1 }))).reply).toEqual({ id: 'packet-1', isDisposed: true, response: { ok: 1 } });
    expect((await replyTo(async () => ({ ok: 2 }))).reply).toEqual({ id: 'packet-1', isDisposed: true, response: { ok: 2 } });
  });

  it.each([
    ['an Observable', () => of({ ok: 1 })],
    ['a promise of an Observable', async () => of({ ok: 1 })],
  ])('refuses %s as a reply: SERVER_FAILED with a support code, logged, never the stream object serialized as a value', async (_what, handler) => {
    const { reply, errors } = await replyTo(handler);
    expect(reply).toMatchObject({ id: 'packet-1', isDisposed: true, err: { code: 'SERVER_FAILED', supportCode: expect.any(String) } });
    expect(reply).not.toHaveProperty('response');
    expect(errors).toHaveLength(1);
    expect(String((errors[0][0] as { err?: Error }).err?.message)).toContain('returned an Observable');
  });

  it("logs a reply it cannot publish (the connection closing under it), as Nest's send does, and does not throw", async () => {
    const server = new GatewayNatsServer({ servers: ['nats://127.0.0.1:1'], name: 't', queue: 't', subjectPrefix: '', drainTimeoutMs: 10, maxInFlight: 10 });
    const handler = () => ({ ok: 1 });
    server.dispatchDirectly({
      handlers: new Map([['t.v1', handler]]),
      interceptor: new RequestContextInterceptor(new Metrics()),
      filter: new AllExceptionsFilter(createLogger({ service: 't', level: 'silent' })),
    });
    const nestLogger = (server as unknown as { logger: { error: (err: unknown) => void } }).logger;
    const logged = jest.spyOn(nestLogger, 'error').mockImplementation(() => undefined);
    const closed = new Error('connection closed');
    const respond = jest.fn(() => {
      throw closed;
    });
    const handleDirectly = (server as unknown as { handleDirectly: (...args: unknown[]) => Promise<void> }).handleDirectly.bind(server);
    await expect(handleDirectly('t.v1', { respond }, { id: 'packet-1', data: {} }, handler)).resolves.toBeUndefined();
    expect(respond).toHaveBeenCalledTimes(1);
    expect(logged).toHaveBeenCalledWith(closed);
  });

  it('answers a reply NATS refuses for its size with SERVER_FAILED, logged with a support code, instead of leaving the requester to time out', async () => {
    const server = new GatewayNatsServer({ servers: ['nats://127.0.0.1:1'], name: 't', queue: 't', subjectPrefix: '', drainTimeoutMs: 10, maxInFlight: 10 });
    const handler = () => ({ ok: 1 });
    const logger = createLogger({ service: 't', level: 'silent' });
    const errors = jest.spyOn(logger, 'error');
    server.dispatchDirectly({ handlers: new Map([['t.v1', handler]]), interceptor: new RequestContextInterceptor(new Metrics()), filter: new AllExceptionsFilter(logger) });
    const tooLarge = Object.assign(new Error("'payload' max_payload size exceeded"), { name: 'InvalidArgumentError' });
    const respond = jest.fn().mockImplementationOnce(() => {
      throw tooLarge;
    });
    const handleDirectly = (server as unknown as { handleDirectly: (...args: unknown[]) => Promise<void> }).handleDirectly.bind(server);
    await handleDirectly('t.v1', { respond }, { id: 'packet-1', data: {} }, handler);
    expect(respond).toHaveBeenCalledTimes(2);
    const [data] = respond.mock.calls[1] as [Uint8Array | string];
    const reply = JSON.parse(typeof data === 'string' ? data : Buffer.from(data).toString('utf8')) as Record<string, unknown>;
    expect(reply).toMatchObject({ id: 'packet-1', isDisposed: true, err: { code: 'SERVER_FAILED', supportCode: expect.any(String) } });
    expect(errors).toHaveBeenCalledWith(expect.objectContaining({ err: tooLarge, supportCode: (reply.err as { supportCode: string }).supportCode }), 'request failed');
  });
});
