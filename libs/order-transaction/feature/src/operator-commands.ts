import pino from 'pino';
import { LedgerRepository, NotificationOutbox, ORDER_TRANSACTION_SCHEMA, UnknownInquiries, UnresolvedTransactions } from '@gateway/order-transaction/data-access';
import { RecordOperation, ResolveUnknown, WriteNotification } from '@gateway/order-transaction/domain';
import {
  AppLogger,
  createLogger,
  createServiceDataSource,
  databaseConnection,
  DatabaseConfig,
  failStartup,
  loadConfig,
  Metrics,
  migrateSchema,
  openStandaloneDatabase,
  StandaloneConfig,
} from '@gateway/platform';
import type { DataSource } from 'typeorm';
import { notificationsLine, runNotificationsCommand } from './notifications.command';
import { runTransactionsCommand, transactionsLine } from './transactions.command';

export interface CommandIo {
  out(text: string): void;
  err(text: string): void;
}

export const stdio: CommandIo = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

/**
 * The operator's commands of order-transaction's image, over its own schema:
 * `main.js notifications ...` (webhooks that ran out of retries, docs/webhooks.md) and
 * `main.js transactions ...` (transactions to reconcile, docs/operations/README.md).
 */
const OPERATOR_COMMANDS = {
  notifications: (argv: string[], dataSource: DataSource, io: CommandIo) => runNotificationsCommand(argv, NotificationOutbox.over(dataSource), io),
  transactions: (argv: string[], dataSource: DataSource, io: CommandIo) =>
    runTransactionsCommand(argv, { unresolved: UnresolvedTransactions.over(dataSource), resolution: resolveUnknownOver(dataSource, commandLogger()) }, io),
};

/**
 * The ledger's resolution of UNKNOWN outcomes over the command's own connection: the service's
 * use cases, wired as its module wires them (the record path, the webhook outbox writer).
 * Its counter lives and dies with the command's process: the log line is the lasting record.
 */
export function resolveUnknownOver(dataSource: DataSource, logger: AppLogger): ResolveUnknown {
  const ledger = LedgerRepository.over(dataSource);
  const events = new WriteNotification(NotificationOutbox.over(dataSource), logger);
  const inquiries = UnknownInquiries.over(dataSource);
  return new ResolveUnknown(ledger, new RecordOperation(ledger, events, inquiries, logger), events, inquiries, logger, new Metrics());
}

/** JSON log lines on stderr: stdout is the command's answer (--json output stays parseable). */
function commandLogger(): AppLogger {
  return createLogger({ service: 'order-transaction', level: 'info', destination: pino.destination({ fd: 2, sync: true }) });
}

export type OperatorCommand = keyof typeof OPERATOR_COMMANDS;

/**
 * `--help`, no subcommand, or a line that does not parse: answered by the command itself before
 * any configuration is read or database opened (as the admin CLI and `rotate-keys` do): an
 * operator reading the usage needs no credentials.
 */
const LINE_OR_ANSWER: Record<OperatorCommand, (argv: string[], io: CommandIo) => unknown> = {
  notifications: notificationsLine,
  transactions: transactionsLine,
};

function answeredFromTheLine(command: OperatorCommand, argv: string[], io: CommandIo): number | undefined {
  const line = LINE_OR_ANSWER[command](argv, io);
  return typeof line === 'number' ? line : undefined;
}

export function isOperatorCommand(name: string | undefined): name is OperatorCommand {
  return name !== undefined && Object.hasOwn(OPERATOR_COMMANDS, name);
}

/** `main.js <command> ...` of order-transaction: the service's own database credentials only. */
export async function runOperatorCommandMain(command: OperatorCommand, argv: string[]): Promise<void> {
  const answered = answeredFromTheLine(command, argv, stdio);
  if (answered !== undefined) {
    process.exitCode = answered;
    return;
  }
  try {
    const config = loadConfig(DatabaseConfig);
    const dataSource = createServiceDataSource(ORDER_TRANSACTION_SCHEMA, { ...databaseConnection(config, `order-transaction-${command}`), poolSize: 2 });
    await dataSource.initialize();
    try {
      process.exitCode = await OPERATOR_COMMANDS[command](argv, dataSource, stdio);
    } finally {
      await dataSource.destroy();
    }
  } catch (err) {
    failStartup(undefined, err);
  }
}

/** The same against the standalone profile's embedded database (started here if the gateway is not running). */
export async function runStandaloneOperatorCommand(command: OperatorCommand, argv: string[], standalone: StandaloneConfig): Promise<void> {
  const answered = answeredFromTheLine(command, argv, stdio);
  if (answered !== undefined) {
    process.exitCode = answered;
    return;
  }
  try {
    const pg = await openStandaloneDatabase(standalone);
    const dataSource = createServiceDataSource(ORDER_TRANSACTION_SCHEMA, { url: pg.url, poolSize: 2, statementTimeoutMs: 10_000, applicationName: `${command}-command` });
    let code: number;
    try {
      await dataSource.initialize();
      await migrateSchema(dataSource);
      code = await OPERATOR_COMMANDS[command](argv, dataSource, stdio);
    } finally {
      await dataSource.destroy().catch(() => undefined);
      await pg.stop();
    }
    // The command is done and its database stopped: nothing is left to wait for.
    process.exit(code);
  } catch (err) {
    failStartup(undefined, err);
  }
}
