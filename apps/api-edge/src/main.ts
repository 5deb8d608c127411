import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { EDGE_SCHEMA } from '@gateway/edge/data-access';
import { EdgeConfig, EdgeModule, edgeServerOptions } from '@gateway/edge/feature';
import {
  AppLogger,
  bootstrapApp,
  createLogger,
  DatabaseConfig,
  exitOnSignals,
  failStartup,
  loadConfig,
  messagingOptions,
  metricsListen,
  Metrics,
  PlatformModule,
  runMigrateCommand,
} from '@gateway/platform';

async function main(): Promise<void> {
  const migrate = process.argv[2] === 'migrate';
  const signals = exitOnSignals(migrate ? 'command' : 'server');
  let logger: AppLogger | undefined;
  try {
    if (migrate) {
      // The migration Job gets the database credentials only, not the API password pepper.
      const dbConfig = loadConfig(DatabaseConfig);
      logger = createLogger({ service: 'api-edge', level: dbConfig.LOG_LEVEL });
      await runMigrateCommand(EDGE_SCHEMA, dbConfig, logger, signals);
      return;
    }
    const config = loadConfig(EdgeConfig);
    logger = createLogger({ service: 'api-edge', level: config.LOG_LEVEL });
    const metrics = new Metrics();
    const appLogger = logger;

    @Module({
      imports: [
        PlatformModule.forRoot({
          logger,
          metrics,
          messaging: messagingOptions(config, 'api-edge'),
          healthCheckTimeoutMs: config.HEALTH_CHECK_TIMEOUT_MS,
          metricsListen: metricsListen(config),
          answersMessages: false,
        }),
        EdgeModule.forRoot(config),
      ],
    })
    class ApiEdgeAppModule {}

    const running = await bootstrapApp({
      module: ApiEdgeAppModule,
      logger,
      host: config.HTTP_HOST,
      port: config.HTTP_PORT,
      shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
      ...edgeServerOptions(config, appLogger, metrics),
    });
    logger.info({ url: running.url }, 'api-edge ready for requests');
    signals.shutDownWith(running);
  } catch (err) {
    failStartup(logger, err);
  }
}

void main();
