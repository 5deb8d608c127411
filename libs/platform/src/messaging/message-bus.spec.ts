import { GatewayError } from '@gateway/contracts';
import { createLogger } from '../logging';
import { Metrics } from '../metrics';
import { rejectionOf } from '../test-support';
import { InProcessBus, InProcessClient } from './in-process.transport';
import { MessageBus, MessagingOptions, NotDeliveredError, notActedOnReply, RequestReplyClient, UnansweredError } from './message-bus';
import { PastDeadlineError } from './operation-deadline';

const options: MessagingOptions = {
  profile: 'standalone',
  servers: [],
  subjectPrefix: '',
  requestTimeoutMs: 50,
  serviceName: 'test',
};

function busOver(client: RequestReplyClient): MessageBus {
  return new MessageBus(client, options, createLogger({ service: 'test', level: 'silent' }), new Metrics());
}

/** A client whose every request ends as `reply` does. */
function clientReplying(reply: () => Promise<unknown>): RequestReplyClient {
  return { request: () => reply() };
}

describe('MessageBus', () => {
  it('tells a request nobody serves (never delivered) apart, as SERVER_BUSY all the same', async () => {
    const err = await rejectionOf(busOver(new InProcessClient(new InProcessBus())).request('nobody.home.v1', {}));
    expect(err).toBeInstanceOf(NotDeliveredError);
    expect(err).toMatchObject({ code: 'SERVER_BUSY', httpStatus: 503, subject: 'nobody.home.v1' });
  });

  it('reads NATS no-responders, a RequestError caused by NoResponders, the same way', async () => {
    const noResponders = Object.assign(new Error("no responders: 'x'"), { name: 'NoResponders' });
    const requestError = Object.assign(new Error('request failed', { cause: noResponders }), { name: 'RequestError' });
    const err = await rejectionOf(busOver(clientReplying(() => Promise.reject(requestError))).request('x', {}));
    expect(err).toBeInstanceOf(NotDeliveredError);
  });

  it("reads a service's refusal unprocessed (over its in-flight cap) as never delivered", async () => {
    const err = await rejectionOf(busOver(clientReplying(() => Promise.reject(notActedOnReply()))).request('busy.v1', {}));
    expect(err).toBeInstanceOf(NotDeliveredError);
    expect(err).toMatchObject({ code: 'SERVER_BUSY', httpStatus: 503, retryAfterSeconds: 1, subject: 'busy.v1' });
  });

  it("observes a service's refusal unprocessed as refused, apart from a service that is away or does not answer", async () => {
    // GatewayServiceUnavailable (critical) pages on `unavailable`: a service shedding at its
    // in-flight cap answered at once, and has its own alert (GatewayRequestsShed, a warning) and
    // the 5xx rate's page.
    const metrics = new Metrics();
    const bus = (reply: () => Promise<unknown>) => new MessageBus(clientReplying(reply), options, createLogger({ service: 'test', level: 'silent' }), metrics);
    const noResponders = Object.assign(new Error("no responders: 'x'"), { name: 'NoResponders' });
    const timeout = Object.assign(new Error('timeout'), { name: 'TimeoutError' });
    await rejectionOf(bus(() => Promise.reject(notActedOnReply())).request('busy.v1', {}));
    await rejectionOf(bus(() => Promise.reject(noResponders)).request('away.v1', {}));
    await rejectionOf(bus(() => Promise.reject(timeout)).request('slow.v1', {}));
    await rejectionOf(bus(() => Promise.reject(GatewayError.serverBusy().toWire())).request('database-away.v1', {}));
    const counts = (await metrics.natsRequestDuration.get()).values
      .filter((v) => v.metricName === 'gateway_nats_request_duration_seconds_count')
      .map((v) => [v.labels.subject, v.labels.outcome, v.value]);
    expect(counts).toEqual([
      ['busy.v1', 'refused', 1],
      ['away.v1', 'unavailable', 1],
      ['slow.v1', 'unavailable', 1],
      ['database-away.v1', 'unavailable', 1],
    ]);
  });

  it('keeps a SERVER_BUSY the service sent without that mark (it may have acted) a plain SERVER_BUSY', async () => {
    const err = await rejectionOf(busOver(clientReplying(() => Promise.reject(GatewayError.serverBusy().toWire()))).request('busy.v1', {}));
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).not.toBeInstanceOf(NotDeliveredError);
    expect(err).toMatchObject({ code: 'SERVER_BUSY', retryAfterSeconds: 1 });
  });

  it('gives a requester of the release before, which knows no mark, a plain SERVER_BUSY from the refusal', () => {
    const wire = notActedOnReply();
    expect(GatewayError.isWire(wire)).toBe(true);
    expect(GatewayError.fromWire(wire)).toMatchObject({ code: 'SERVER_BUSY', httpStatus: 503, retryAfterSeconds: 1 });
  });

  it('does not call a timeout undelivered: the service may have acted', async () => {
    const bus = new InProcessBus();
    bus.register('slow.v1', () => new Promise(() => undefined));
    const err = await rejectionOf(busOver(new InProcessClient(bus)).request('slow.v1', {}));
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).not.toBeInstanceOf(NotDeliveredError);
    expect(err).toMatchObject({ code: 'SERVER_BUSY' });
    // Marked as unanswered, so the edge can tell a merchant the operation may have been processed.
    expect(err).toBeInstanceOf(UnansweredError);
  });

  it('calls a timeout and a connection closed while the reply was awaited unanswered; a refusal stays what it is', async () => {
    const closed = Object.assign(new Error('closed'), { name: 'ClosedConnectionError' });
    await expect(rejectionOf(busOver(clientReplying(() => Promise.reject(closed))).request('x', {}))).resolves.toBeInstanceOf(UnansweredError);
    await expect(rejectionOf(busOver(clientReplying(() => Promise.reject(notActedOnReply()))).request('x', {}))).resolves.not.toBeInstanceOf(
      UnansweredError,
    );
  });

  it.each(['DrainingConnectionError', 'ConnectionError', 'NotSent'])('reads a request the client refused to send (%s) as never delivered', async (name) => {
    const unsent = await rejectionOf(busOver(clientReplying(() => Promise.reject(Object.assign(new Error('refused'), { name })))).request('x', {}));
    expect(unsent).toBeInstanceOf(NotDeliveredError);
    expect(unsent).toMatchObject({ code: 'SERVER_BUSY', httpStatus: 503, retryAfterSeconds: 1 });
  });

  it('keeps a RequestError a plain SERVER_BUSY: nats.js raises it for a request already published too', async () => {
    const requestError = Object.assign(new Error('connection closed'), { name: 'RequestError' });
    const err = await rejectionOf(busOver(clientReplying(() => Promise.reject(requestError))).request('x', {}));
    expect(err).not.toBeInstanceOf(NotDeliveredError);
    expect(err).toMatchObject({ code: 'SERVER_BUSY' });
  });

  it("reads a service's refusal of a message past its deadline as never delivered, in-process as on NATS", async () => {
    const bus = new InProcessBus();
    // As the service's exception filter sends a coded error: its wire form.
    bus.register('late.v1', async () => {
      throw new PastDeadlineError(Date.now() - 1).toWire();
    });
    const err = await rejectionOf(busOver(new InProcessClient(bus)).request('late.v1', {}));
    expect(err).toBeInstanceOf(NotDeliveredError);
    expect(err).toMatchObject({ code: 'SERVER_BUSY', httpStatus: 503, retryAfterSeconds: 1 });
  });

  it('stamps as deadline the time a request sent now stops being waited for', () => {
    const before = Date.now();
    const deadline = busOver(clientReplying(() => Promise.resolve())).deadline();
    expect(deadline).toBeGreaterThanOrEqual(before + options.requestTimeoutMs);
    expect(deadline).toBeLessThanOrEqual(Date.now() + options.requestTimeoutMs);
  });

  it("stamps a request sent with a timeout of its own with that timeout's end", () => {
    const before = Date.now();
    const deadline = busOver(clientReplying(() => Promise.resolve())).deadline(1_000);
    expect(options.requestTimeoutMs).not.toBe(1_000);
    expect(deadline).toBeGreaterThanOrEqual(before + 1_000);
    expect(deadline).toBeLessThanOrEqual(Date.now() + 1_000);
  });

  it('sends a request that shares a deadline with the time left to it as its timeout', async () => {
    const timeouts: number[] = [];
    const messages = busOver({ request: async (_subject, _data, timeoutMs) => void timeouts.push(timeoutMs) });
    jest.spyOn(Date, 'now').mockReturnValue(1_000_000);
    try {
      await messages.request('seal.v1', {}, { deadline: 1_000_000 + 7_000 });
      await messages.request('seal.v1', {}, { deadline: 1_000_000 + 1, timeoutMs: 5_000 });
    } finally {
      jest.restoreAllMocks();
    }
    expect(timeouts).toEqual([7_000, 1]);
  });

  it('sends nothing once the deadline it shares has passed: never delivered, so nothing was done', async () => {
    const request = jest.fn(async () => ({}));
    const messages = busOver({ request });
    jest.spyOn(Date, 'now').mockReturnValue(1_000_000);
    try {
      for (const deadline of [1_000_000, 999_999]) {
        const err = await rejectionOf(messages.request('verify.v1', {}, { deadline }));
        expect(err).toBeInstanceOf(NotDeliveredError);
        expect(err).toMatchObject({ code: 'SERVER_BUSY', httpStatus: 503, retryAfterSeconds: 1, subject: 'verify.v1', explanation: GatewayError.serverBusy().explanation });
      }
    } finally {
      jest.restoreAllMocks();
    }
    expect(request).not.toHaveBeenCalled();
  });

  it('answers with the reply, and rethrows a coded error from the service as the same GatewayError', async () => {
    const bus = new InProcessBus();
    bus.register('echo.v1', async (data) => ({ echoed: data }));
    bus.register('refuse.v1', async () => {
      throw new GatewayError('INVALID_REQUEST', { explanation: 'no' }).toWire();
    });
    const messages = busOver(new InProcessClient(bus));

    await expect(messages.request('echo.v1', { a: 1 })).resolves.toEqual({ echoed: { a: 1 } });
    await expect(rejectionOf(messages.request('refuse.v1', {}))).resolves.toMatchObject({ code: 'INVALID_REQUEST', explanation: 'no' });
  });
});
