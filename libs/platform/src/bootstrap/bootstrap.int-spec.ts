import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Controller, Get, Injectable, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { createLogger } from '../logging';
import { createMessageClient, createMessageServer, MessageBus, MessagingOptions, UnansweredError } from '../messaging';
import { Metrics } from '../metrics';
import { PlatformModule } from '../platform.module';
import { testServers } from '../test-support';
import { bootstrapApp, RunningApp } from './bootstrap';

/**
 * A replica that joins its queue group while others serve (a rolling deploy, a scale-up) must
 * not take a request before its init hooks have run: migrations, the vault's data keys and
 * every other onModuleInit. Nest's startAllMicroservices subscribes without running them.
 */

jest.setTimeout(20_000);

const SUBJECT = 'bootstrap-probe.v1';
const INIT_MS = 1_500;

@Injectable()
class SlowInit implements OnModuleInit {
  initialised = false;

  async onModuleInit(): Promise<void> {
    await sleep(INIT_MS);
    this.initialised = true;
  }
}

@Controller()
class ProbeController {
  constructor(private readonly init: SlowInit) {}

  @MessagePattern(SUBJECT)
  probe(): { initialised: boolean } {
    return { initialised: this.init.initialised };
  }
}

/** An HTTP request that is still working (and still needs NATS) when the shutdown starts. */
@Controller()
class SlowHttpController {
  constructor(private readonly bus: MessageBus) {}

  @Get('slow')
  async slow(): Promise<{ initialised: boolean }> {
    await sleep(600);
    return this.bus.request<{ initialised: boolean }>(SUBJECT, {});
  }
}

describe('bootstrapApp with a message server', () => {
  const messaging: MessagingOptions = {
    profile: 'distributed',
    servers: [testServers.natsUrl],
    subjectPrefix: `t${randomBytes(6).toString('hex')}.`,
    requestTimeoutMs: 500,
    serviceName: 'bootstrap-probe',
  };
  const logger = createLogger({ service: 'bootstrap-probe', level: process.env.PROBE_LOG ?? 'silent' });
  const client = createMessageClient(messaging);
  const bus = new MessageBus(client, messaging, logger, new Metrics());
  let running: RunningApp | undefined;

  afterAll(async () => {
    await running?.shutdown('test over');
    await client.close();
  });

  it('answers no request before its init hooks have run', async () => {
    @Module({
      imports: [PlatformModule.forRoot({ logger, metrics: new Metrics(), messaging, healthCheckTimeoutMs: 1_000 })],
      controllers: [ProbeController],
      providers: [SlowInit],
    })
    class ProbeModule {}

    const answers: boolean[] = [];
    let booted = false;
    const probing = (async () => {
      while (!booted) {
        try {
          answers.push((await bus.request<{ initialised: boolean }>(SUBJECT, {}, { timeoutMs: 200 })).initialised);
        } catch {
          // No responder yet: the replica is not subscribed, which is what it should be.
          await sleep(20);
        }
      }
    })();
    running = await bootstrapApp({
      module: ProbeModule,
      logger,
      host: '127.0.0.1',
      port: 0,
      shutdownGraceMs: 2_000,
      messageServer: createMessageServer(messaging, 2_000),
    });
    booted = true;
    await probing;
    answers.push((await bus.request<{ initialised: boolean }>(SUBJECT, {})).initialised);

    expect(answers.filter((initialised) => !initialised).length).toBe(0);
    expect(answers.at(-1)).toBe(true);
  });

  it('answers the HTTP requests in flight when shutting down, and closes their keep-alive connections so the shutdown ends within its grace period', async () => {
    @Module({
      imports: [PlatformModule.forRoot({ logger, metrics: new Metrics(), messaging, healthCheckTimeoutMs: 1_000 })],
      controllers: [ProbeController, SlowHttpController],
      providers: [SlowInit],
    })
    class DrainModule {}

    const app = await bootstrapApp({
      module: DrainModule,
      logger,
      host: '127.0.0.1',
      port: 0,
      shutdownGraceMs: 5_000,
      messageServer: createMessageServer(messaging, 5_000),
    });
    // fetch keeps its connection alive, as an ingress controller does: without closing it after
    // the answer, the close waits for Fastify's keep-alive timeout and the grace timer exits 1.
    const inFlight = fetch(`${app.url}/slow`);
    await sleep(150);
    const shutdown = app.shutdown('test: SIGTERM with a request in flight');
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ initialised: true });
    await shutdown;
  });
});

/**
 * The standalone gateway runs every service in one process on the in-process bus. A ledger
 * operation whose caller stopped waiting (its deadline passed, the edge answered) still has to
 * record what the acquirer did: the shutdown must not close the database under it.
 */
describe('bootstrapApp with the standalone message server', () => {
  const SLOW_SUBJECT = 'bootstrap-standalone.slow.v1';
  const events: string[] = [];

  @Controller()
  class SlowOperationController {
    @MessagePattern(SLOW_SUBJECT)
    async record(): Promise<{ recorded: true }> {
      await sleep(600);
      events.push('operation recorded');
      return { recorded: true };
    }
  }

  /** Stands for the database connections, which TypeORM closes in this hook. */
  @Injectable()
  class Connections implements OnApplicationShutdown {
    onApplicationShutdown(): void {
      events.push('connections closed');
    }
  }

  it('finishes a request its caller stopped waiting for before the app closes its connections', async () => {
    const messaging: MessagingOptions = {
      profile: 'standalone',
      servers: [],
      // The in-process bus serves its subjects as the handlers name them (the standalone profile's).
      subjectPrefix: '',
      requestTimeoutMs: 100,
      serviceName: 'standalone-probe',
    };
    const logger = createLogger({ service: 'standalone-probe', level: process.env.PROBE_LOG ?? 'silent' });

    @Module({
      imports: [PlatformModule.forRoot({ logger, metrics: new Metrics(), messaging, healthCheckTimeoutMs: 1_000 })],
      controllers: [SlowOperationController],
      providers: [Connections],
    })
    class StandaloneModule {}

    const app = await bootstrapApp({
      module: StandaloneModule,
      logger,
      host: '127.0.0.1',
      port: 0,
      shutdownGraceMs: 5_000,
      messageServer: createMessageServer(messaging, 5_000),
    });
    const bus = app.app.get(MessageBus);
    // The caller gives up (as an edge whose deadline passed), the operation goes on.
    await expect(bus.request(SLOW_SUBJECT, {})).rejects.toBeInstanceOf(UnansweredError);
    await app.shutdown('test: SIGTERM with an operation in flight');

    expect(events).toEqual(['operation recorded', 'connections closed']);
  });
});
