import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, NestFactory } from '@nestjs/core';
import { CustomTransportStrategy, MessagePattern, Payload } from '@nestjs/microservices';
import { GatewayError } from '@gateway/contracts';
import { AllExceptionsFilter } from '../../errors';
import { createLogger } from '../../logging';
import { Metrics } from '../../metrics';
import { APP_LOGGER } from '../../tokens';
import { MessageBus, NotDeliveredError, RequestReplyClient, UnansweredError } from '../message-bus';
import { RequestContextInterceptor } from '../request-context.interceptor';

/** What the probe's handlers were given, for the checks that nothing reached them. */
const received: unknown[] = [];

@Controller()
class TransportProbeController {
  @MessagePattern('probe.echo.v1')
  echo(@Payload() data: { at?: unknown; absent?: unknown; list?: unknown[] }) {
    received.push(data);
    return { given: data, at: new Date(0), absent: undefined, list: [undefined, 1] };
  }

  @MessagePattern('probe.mutate.v1')
  mutate(@Payload() data: { n: number }) {
    data.n = 2;
    return data;
  }

  @MessagePattern('probe.nothing.v1')
  nothing(): void {}

  @MessagePattern('probe.refuse.v1')
  refuse() {
    throw GatewayError.invalidField('order.amount', 'INVALID', 'Not an amount.');
  }

  @MessagePattern('probe.fail.v1')
  async fail() {
    throw new Error('a bug');
  }

  @MessagePattern('probe.slow.v1')
  async slow() {
    await new Promise((resolve) => setTimeout(resolve, 600));
    return 'late';
  }

  /** A reply of `size` characters. */
  @MessagePattern('probe.sized.v1')
  sized(@Payload() data: { size: number }) {
    return 'r'.repeat(data.size);
  }

  @MessagePattern('probe.bigint.v1')
  bigint() {
    return { n: 1n };
  }
}

@Module({
  controllers: [TransportProbeController],
  providers: [
    { provide: APP_LOGGER, useValue: createLogger({ service: 'transport-probe', level: 'silent' }) },
    { provide: Metrics, useValue: new Metrics() },
    { provide: APP_FILTER, useClass: AllExceptionsFilter },
    { provide: APP_INTERCEPTOR, useClass: RequestContextInterceptor },
  ],
})
class TransportProbeModule {}

/** A service of the probe's handlers behind `server`, as PlatformModule runs one (its interceptor and filter). */
export async function startTransportProbe(server: CustomTransportStrategy): Promise<INestMicroservice> {
  const app = await NestFactory.createMicroservice(TransportProbeModule, { strategy: server, logger: false });
  await app.init();
  return app;
}

export interface TransportUnderTest {
  /** The requester's client; `subjectPrefix` what the server's subjects carry. */
  client: RequestReplyClient;
  subjectPrefix: string;
  close(): Promise<void>;
}

/** The NATS server's default max_payload (1 MiB): what both transports refuse a request above. */
const MAX_PAYLOAD = 1024 * 1024;

/**
 * The probe's servers' NATS_MAX_REPLY_BYTES (start them with it): the largest reply they send, in
 * parts over NATS. Smaller than the default (4 MiB) to keep the tests quick.
 */
export const PROBE_MAX_REPLY_BYTES = 3 * MAX_PAYLOAD;

/** The bytes of Nest's reply packet around a string response of the probe's (`{"id":"…","response":"…","isDisposed":true}`), at most. */
const PACKET_BYTES = 100;

/**
 * What both message transports promise a requester (MessageBus, as every service sends), run
 * against the in-process bus in unit tests and against NATS in integration tests: the standalone
 * profile answers as the distributed one does (docs/decisions/subject-prefix-and-in-process-bus.md).
 * `start` serves the probe (startTransportProbe) and returns a client to it.
 */
export function describeTransportContract(name: string, start: () => Promise<TransportUnderTest>): void {
  describe(`${name} transport contract`, () => {
    let transport: TransportUnderTest;
    let bus: MessageBus;

    beforeAll(async () => {
      transport = await start();
      const logger = createLogger({ service: 'transport-requester', level: 'silent' });
      bus = new MessageBus(
        transport.client,
        {
          profile: 'standalone',
          servers: [],
          subjectPrefix: transport.subjectPrefix,
          requestTimeoutMs: 2_000,
          serviceName: 'requester',
        },
        logger,
        new Metrics(),
      );
    });

    afterAll(async () => {
      await transport?.close();
    });

    const refusal = async (reply: Promise<unknown>): Promise<unknown> =>
      reply.then(
        () => 'answered',
        (err: unknown) => err,
      );

    it('carries payloads as JSON both ways: no object is shared, dates become strings, undefined goes', async () => {
      const payload = { n: 1 };
      expect(await bus.request('probe.mutate.v1', payload)).toEqual({ n: 2 });
      expect(payload).toEqual({ n: 1 });
      expect(
        await bus.request('probe.echo.v1', { at: new Date(1), absent: undefined, list: [undefined] }),
      ).toEqual({
        given: { at: '1970-01-01T00:00:00.001Z', list: [null] },
        at: '1970-01-01T00:00:00.000Z',
        list: [null, 1],
      });
      expect(await bus.request('probe.nothing.v1', {})).toBeUndefined();
    });

    it("answers a handler's coded error as that error, and an unexpected one as SERVER_FAILED with a support code", async () => {
      const refused = await refusal(bus.request('probe.refuse.v1', {}));
      expect(refused).toBeInstanceOf(GatewayError);
      expect(refused).toMatchObject({
        code: 'INVALID_FIELD',
        field: 'order.amount',
        explanation: 'Not an amount.',
      });
      const failed = await refusal(bus.request('probe.fail.v1', {}));
      expect(failed).toMatchObject({
        code: 'SERVER_FAILED',
        supportCode: expect.stringMatching(/^[0-9A-F]{12}$/),
      });
    });

    it('answers a subject nobody serves as never delivered, at once, and a slow handler as unanswered at its timeout', async () => {
      expect(await refusal(bus.request('probe.nobody.v1', {}))).toBeInstanceOf(NotDeliveredError);
      const started = Date.now();
      const late = await refusal(bus.request('probe.slow.v1', {}, { timeoutMs: 200 }));
      expect(late).toBeInstanceOf(UnansweredError);
      expect((late as GatewayError).code).toBe('SERVER_BUSY');
      expect(Date.now() - started).toBeLessThan(550);
    });

    it("refuses a request over NATS's max_payload before any handler sees it", async () => {
      const before = received.length;
      const refused = await refusal(bus.request('probe.echo.v1', { list: ['x'.repeat(MAX_PAYLOAD)] }));
      expect(refused).toMatchObject({ code: 'SERVER_FAILED' });
      expect(received.length).toBe(before);
    });

    it("carries a reply over max_payload whole, up to the server's NATS_MAX_REPLY_BYTES", async () => {
      for (const size of [MAX_PAYLOAD - 100, MAX_PAYLOAD, 2 * MAX_PAYLOAD + 1, PROBE_MAX_REPLY_BYTES - PACKET_BYTES]) {
        const reply = await bus.request<string>('probe.sized.v1', { size });
        expect(reply).toHaveLength(size);
        expect(reply).toBe('r'.repeat(size));
      }
    });

    it('answers a reply it cannot carry (over NATS_MAX_REPLY_BYTES, or not JSON) as SERVER_FAILED at once, not at the timeout', async () => {
      const started = Date.now();
      expect(await refusal(bus.request('probe.sized.v1', { size: PROBE_MAX_REPLY_BYTES }))).toMatchObject({
        code: 'SERVER_FAILED',
      });
      expect(await refusal(bus.request('probe.bigint.v1', {}))).toMatchObject({ code: 'SERVER_FAILED' });
      expect(Date.now() - started).toBeLessThan(1_500);
    });
  });
}
