import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Module } from '@nestjs/common';
import { BrowserPaymentConfig, BrowserPaymentModule } from '@gateway/browser-payment/feature';
import {
  DemoMerchant,
  DemoMerchantProvisioner,
  EdgeConfig,
  EdgeModule,
  edgeServerOptions,
} from '@gateway/edge/feature';
import { isOperatorCommand, OPERATOR_COMMAND_USAGE, OrderTransactionConfig, OrderTransactionModule, runStandaloneOperatorCommand } from '@gateway/order-transaction/feature';
import {
  answerEntryPointLine,
  AppLogger,
  bootstrapApp,
  createLogger,
  createMessageServer,
  exitOnSignals,
  failStartup,
  LOG_LEVELS,
  loadConfig,
  loadStandaloneSecrets,
  messagingOptions,
  metricsListen,
  Metrics,
  PlatformModule,
  StandaloneConfig,
  standaloneWebhookSecretKeys,
  startEmbeddedPostgres,
  stdio,
} from '@gateway/platform';
import { TokenVaultConfig, TokenVaultModule } from '@gateway/token-vault/feature';
import { VerificationConfig, VerificationModule } from '@gateway/verification/feature';
import { runStandalonePayerDataCommand } from './standalone-payer-data';
import { withStandalonePublicBaseUrl } from './standalone-public-base-url';
import { checkStandaloneShutdownGrace, withStandaloneShutdownGrace } from './standalone-shutdown-grace';

/**
 * The standalone profile: every app in one process, an embedded Postgres, the in-process
 * message bus and in-memory locks. Same handlers, validation, migrations and responses as the
 * distributed profile; for trying the gateway on a laptop and for fast tests, never production.
 */
/** Where the standalone gateway listens unless HTTP_HOST is set. */
const STANDALONE_HTTP_HOST = '127.0.0.1';

async function main(): Promise<void> {
  const signals = exitOnSignals('server');
  let logger: AppLogger | undefined;
  let stopPostgres: (() => Promise<void>) | undefined;
  try {
    const standalone = loadConfig(StandaloneConfig);
    const level = (LOG_LEVELS as readonly string[]).includes(process.env.LOG_LEVEL ?? '')
      ? process.env.LOG_LEVEL!
      : 'info';
    logger = createLogger({ service: 'gateway', level });
    const secrets = await loadStandaloneSecrets(standalone, ['vaultMasterKey', 'vaultFingerprintKey', 'webhookSecretKey', 'requestHashKey']);
    const postgres = await startEmbeddedPostgres({
      dataDir: path.join(standalone.STANDALONE_DATA_DIR, 'postgres'),
      port: standalone.STANDALONE_PG_PORT,
      // Stopped by the graceful shutdown below, after the requests in flight are answered.
      stopOnSignals: false,
      onUnexpectedExit: (why) =>
        logger?.error({ why }, 'the embedded Postgres stopped on its own: requests answer 503 until the gateway is restarted'),
    });
    stopPostgres = postgres.stop;
    // Stopped while the gateway starts, it stops its database too, and says so once: what the
    // start was doing meanwhile (connecting, migrating) then fails against the stopping
    // database, and its errors, retries and stack traces are no news.
    const startLogger = logger;
    signals.shutDownWith({
      shutdown: async (reason) => {
        startLogger.info({ reason }, 'stopped while starting');
        startLogger.flush();
        startLogger.level = 'silent';
        await postgres.stop();
      },
    });
    logger.info({ port: standalone.STANDALONE_PG_PORT }, 'embedded Postgres started');

    // PUBLIC_BASE_URL, unless set, is where this process serves (the edge's host, port and TLS);
    // SHUTDOWN_GRACE_MS, unless set, what this process needs to stop (more than the apps' 50 s).
    const env = withStandalonePublicBaseUrl(withStandaloneShutdownGrace({
      DATABASE_POOL_SIZE: '4',
      // The vault's keys, generated at first start next to the database they protect.
      VAULT_MASTER_KEYS: `standalone-1:${secrets.vaultMasterKey}`,
      VAULT_FINGERPRINT_KEY: secrets.vaultFingerprintKey,
      // The key of the ledger's replay hashes (order-transaction and browser-payment), generated
      // with them: a plain hash of a request body would give away its card number and CSC.
      REQUEST_HASH_KEY: secrets.requestHashKey,
      // The one process also delivers webhook notifications; the admin CLI seals merchants'
      // notification secrets with the same generated key.
      ORDER_TRANSACTION_MODE: 'all',
      WEBHOOK_SECRET_KEYS: standaloneWebhookSecretKeys(secrets),
      // A laptop's test merchants may be notified on a local receiver (never live merchants).
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      // This machine only, unless HTTP_HOST says otherwise: a demo merchant whose password is
      // printed, and webhooks to private addresses, are not for the local network.
      HTTP_HOST: STANDALONE_HTTP_HOST,
      ...process.env,
      GATEWAY_PROFILE: 'standalone',
      DATABASE_URL: postgres.url,
      API_PASSWORD_PEPPER: secrets.apiPasswordPepper,
    }));
    const edge = loadConfig(EdgeConfig, env);
    const ledger = loadConfig(OrderTransactionConfig, env);
    checkStandaloneShutdownGrace(edge, ledger);
    const metrics = new Metrics();
    const appLogger = logger;

    @Module({
      imports: [
        PlatformModule.forRoot({
          logger,
          metrics,
          messaging: messagingOptions(edge, 'gateway'),
          healthCheckTimeoutMs: edge.HEALTH_CHECK_TIMEOUT_MS,
          metricsListen: metricsListen(edge),
        }),
        EdgeModule.forRoot(edge, { demoMerchant: true }),
        TokenVaultModule.forRoot(loadConfig(TokenVaultConfig, env)),
        OrderTransactionModule.forRoot(ledger),
        BrowserPaymentModule.forRoot(loadConfig(BrowserPaymentConfig, env)),
        VerificationModule.forRoot(loadConfig(VerificationConfig, env)),
      ],
    })
    class StandaloneAppModule {}

    const running = await bootstrapApp({
      module: StandaloneAppModule,
      logger,
      host: edge.HTTP_HOST,
      port: edge.HTTP_PORT,
      shutdownGraceMs: edge.SHUTDOWN_GRACE_MS,
      messageServer: createMessageServer(messagingOptions(edge, 'gateway'), edge.SHUTDOWN_GRACE_MS),
      ...edgeServerOptions(edge, appLogger, metrics),
    });
    // The grace too: unless set, it is what this process needs with its settings (not the apps' 50 s).
    logger.info({ url: running.url, shutdownGraceMs: edge.SHUTDOWN_GRACE_MS }, 'standalone gateway ready for requests');
    announceDemoMerchant(standalone, edge, running.app.get(DemoMerchantProvisioner).demoMerchant());
    signals.shutDownWith({
      shutdown: async (reason) => {
        await running.shutdown(reason);
        await postgres.stop();
      },
    });
  } catch (err) {
    // Never leave the embedded Postgres running behind a gateway that failed to start.
    await stopPostgres?.().catch(() => undefined);
    failStartup(logger, err);
  }
}

/**
 * The demo merchant's credentials go to the terminal (plain text, not a log line) and to a
 * 0600 file in the data folder, once; later starts only name the merchant.
 */
function announceDemoMerchant(
  standalone: StandaloneConfig,
  edge: EdgeConfig,
  { merchantId, issued }: DemoMerchant,
): void {
  const file = path.resolve(standalone.STANDALONE_DATA_DIR, 'demo-merchant.json');
  const base = `${edge.TLS_CERT_FILE ? 'https' : 'http'}://127.0.0.1:${edge.HTTP_PORT}`;
  if (issued) {
    writeFileSync(
      file,
      JSON.stringify(
        { merchantId, username: `merchant.${merchantId}`, password: issued.password, baseUrl: base },
        null,
        2,
      ),
      { mode: 0o600 },
    );
  }
  const lines = [
    '',
    '  Standalone payment gateway',
    `  API:           ${base}/api/rest/version/100/merchant/${merchantId}/...`,
    `  Demo merchant: ${merchantId} (test mode)`,
    `  API username:  merchant.${merchantId}`,
    issued
      ? `  API password:  ${issued.password}   (shown once; also in ${file})`
      : `  API password:  shown at first start, kept in ${file}`,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

const USAGE = {
  command: 'node dist/apps/gateway/src/main.js',
  image: false,
  what:
    'The standalone gateway (npm start): every app in one process, with an embedded Postgres, the in-process message bus ' +
    'and a demo merchant; for a laptop and tests, never production.',
  settings: "docs/operations/configuration.md (Standalone profile, and each app's section: one process reads them all)",
  commands: [
    { name: 'payer-data', rest: 'erase ...', what: "erase payers' personal data of given orders, the ledger's and browser-payment's", readsItsLine: true },
    // The ledger's other commands as its image lists them; payer-data above runs both services' erasures here.
    ...OPERATOR_COMMAND_USAGE.filter((command) => command.name !== 'payer-data'),
  ],
};

const [command, ...args] = process.argv.slice(2);
// `--help`, or an argument it does not take, is answered before anything is read, started or connected.
const answered = answerEntryPointLine(process.argv.slice(2), USAGE, stdio);
if (answered !== undefined) {
  process.exitCode = answered;
} else if (command === 'payer-data') {
  // Both services register it (the ledger's and browser-payment's erasure): one invocation runs both here.
  void runStandalonePayerDataCommand(args, loadConfig(StandaloneConfig));
} else if (isOperatorCommand(command)) {
  // order-transaction's operator commands (notifications, transactions), on the standalone profile's embedded database.
  void runStandaloneOperatorCommand(command, args, loadConfig(StandaloneConfig));
} else {
  void main();
}
