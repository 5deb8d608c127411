import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { EDGE_SCHEMA } from '@gateway/edge/data-access';
import { EdgeConfig, EdgeModule, edgeServerOptions } from '@gateway/edge/feature';
import {
  answerEntryPointLine,
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
  stdio,
} from '@gateway/platform';

const USAGE = {
  command: 'node dist/apps/api-edge/src/main.js',
  what: "api-edge: the payment gateway's HTTP edge, the merchant API (/api/rest/...) and the payer's pages (/bpui/...).",
  settings: 'docs/operations/configuration.md (Every app, Apps with a database, api-edge)',
  commands: [{ name: 'migrate', rest: '', what: "apply the edge's database migrations, then exit (the migration Job)", readsItsLine: false }],
};

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

// `--help`, or an argument it does not take, is answered before anything is read or connected.
const answered = answerEntryPointLine(process.argv.slice(2), USAGE, stdio);
if (answered === undefined) {
  void main();
} else {
  process.exitCode = answered;
}
