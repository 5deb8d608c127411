import { DynamicModule, Global, Inject, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR } from '@nestjs/core';
import { ClientProxy } from '@nestjs/microservices';
import { TerminusModule } from '@nestjs/terminus';
import type { NatsConnection } from '@nats-io/transport-node';
import { BackgroundJobs } from './bootstrap/background-jobs';
import { PersonalDataRetention } from './bootstrap/personal-data-retention';
import { AllExceptionsFilter } from './errors';
import { HEALTH_OPTIONS, HealthController, ReadinessChecks } from './health';
import { AppLogger } from './logging';
import { createMessageClient, MessageBus, MessagingOptions, RequestContextInterceptor } from './messaging';
import { Metrics, METRICS_LISTEN, MetricsController, MetricsListen, MetricsServer } from './metrics';
import { APP_LOGGER, MESSAGE_CLIENT, MESSAGING_OPTIONS } from './tokens';

export interface PlatformModuleOptions {
  logger: AppLogger;
  /** Created before the app so HTTP hooks registered ahead of Nest can use it. */
  metrics: Metrics;
  messaging: MessagingOptions;
  healthCheckTimeoutMs: number;
  /** Serve /metrics on a port of its own (MetricsServer) instead of the app's HTTP port. */
  metricsListen?: MetricsListen;
  /**
   * False for an app that answers no subjects (api-edge): it then goes without
   * RequestContextInterceptor, which acts on message handlers only. Nest runs every global
   * interceptor around every HTTP handler too, through an rxjs pipeline of its own per request
   * (docs/performance.md, "Tuning done"). Default true.
   */
  answersMessages?: boolean;
}

/**
 * What every app gets once, whatever it does: the logger, metrics, health endpoints, the
 * message client, the stop of its background jobs (BackgroundJobs), the payer personal-data
 * retention job its services' passes join (PersonalDataRetention), and the exception filter of
 * both transports; an app that answers subjects
 * also the request context and handling time of its message handlers (RequestContextInterceptor).
 */
@Global()
@Module({})
export class PlatformModule implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(MESSAGE_CLIENT) private readonly client: ClientProxy<any, any>, // eslint-disable-line @typescript-eslint/no-explicit-any
    @Inject(MESSAGING_OPTIONS) private readonly messaging: MessagingOptions,
    private readonly checks: ReadinessChecks,
  ) {}

  static forRoot(options: PlatformModuleOptions): DynamicModule {
    return {
      module: PlatformModule,
      imports: [TerminusModule.forRoot({ logger: false })],
      controllers: options.metricsListen ? [HealthController] : [HealthController, MetricsController],
      providers: [
        { provide: APP_LOGGER, useValue: options.logger },
        { provide: MESSAGING_OPTIONS, useValue: options.messaging },
        { provide: MESSAGE_CLIENT, useFactory: () => createMessageClient(options.messaging) },
        { provide: HEALTH_OPTIONS, useValue: { checkTimeoutMs: options.healthCheckTimeoutMs } },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        ...(options.answersMessages === false ? [] : [{ provide: APP_INTERCEPTOR, useClass: RequestContextInterceptor }]),
        { provide: Metrics, useValue: options.metrics },
        MessageBus,
        ReadinessChecks,
        BackgroundJobs,
        PersonalDataRetention,
        ...(options.metricsListen ? [{ provide: METRICS_LISTEN, useValue: options.metricsListen }, MetricsServer] : []),
      ],
      exports: [APP_LOGGER, MESSAGING_OPTIONS, MESSAGE_CLIENT, Metrics, MessageBus, ReadinessChecks, BackgroundJobs, PersonalDataRetention],
    };
  }

  onApplicationBootstrap(): void {
    if (this.messaging.profile === 'distributed') {
      // Connect in the background: readiness reports NATS down until it answers, and the
      // client keeps reconnecting on its own.
      this.client.connect().catch(() => undefined);
      this.checks.add('nats', async () => {
        await this.client.connect();
        await this.client.unwrap<NatsConnection>().rtt();
      });
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}
