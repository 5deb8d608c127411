import {
  LedgerRepository,
  NotificationOutbox,
  ORDER_TRANSACTION_SCHEMA,
  PayerDataRepository,
  UnknownInquiries,
  UnresolvedTransactions,
} from '@gateway/order-transaction/data-access';
import { ErasePayerData, RecordLostTransaction, RecordOperation, ResolveUnknown, WriteNotification } from '@gateway/order-transaction/domain';
import { SealingKeyRing } from '@gateway/crypto';
import {
  AppLogger,
  CommandIo,
  commandLogger,
  ConfigError,
  type EntryPointCommand,
  loadStandaloneSecrets,
  Metrics,
  runCommandMain,
  runStandaloneCommand,
  StandaloneConfig,
  standaloneWebhookSecretKeys,
  stdio,
  withServiceDatabase,
  withStandaloneSchema,
} from '@gateway/platform';
import type { DataSource } from 'typeorm';
import { notificationsLine, runNotificationsCommand } from './notifications.command';
import { payerDataLine, runPayerDataCommand } from './payer-data.command';
import { runTransactionsCommand, transactionsLine } from './transactions.command';

/**
 * The operator's commands of order-transaction's image, over its own schema:
 * `main.js notifications ...` (webhooks that ran out of retries, docs/webhooks.md),
 * `main.js transactions ...` (transactions to reconcile, docs/operations/README.md) and
 * `main.js payer-data erase ...` (a payer's erasure request, docs/operations/README.md).
 */
const OPERATOR_COMMANDS = {
  notifications: (argv: string[], { dataSource, io, webhookKeys }: CommandContext) =>
    runNotificationsCommand(argv, NotificationOutbox.over(dataSource), io, webhookKeys),
  transactions: (argv: string[], { dataSource, io }: CommandContext) => {
    const logger = commandLogger('order-transaction');
    return runTransactionsCommand(
      argv,
      { unresolved: UnresolvedTransactions.over(dataSource), resolution: resolveUnknownOver(dataSource, logger), lost: recordLostOver(dataSource, logger) },
      io,
    );
  },
  'payer-data': (argv: string[], { dataSource, io }: CommandContext) =>
    runPayerDataCommand(argv, new ErasePayerData(PayerDataRepository.over(dataSource), commandLogger('order-transaction')), io),
};

/** What a command runs with: the service's database, the operator's terminal, and the keys it may need. */
interface CommandContext {
  dataSource: DataSource;
  io: CommandIo;
  /** The dispatcher's WEBHOOK_SECRET_KEYS, read when a command needs them: a ConfigError when unset or malformed. */
  webhookKeys: () => SealingKeyRing;
}

/** WEBHOOK_SECRET_KEYS as the dispatcher reads it (the same value: docs/webhooks.md). */
function webhookKeysFrom(text: string | undefined): () => SealingKeyRing {
  return () => {
    if (!text) {
      throw new ConfigError([
        {
          variable: 'WEBHOOK_SECRET_KEYS',
          problem: "is required to resend notifications (the dispatcher's value): a notification whose secret it cannot open is not queued",
        },
      ]);
    }
    try {
      return SealingKeyRing.parse(text, 'WEBHOOK_SECRET_KEYS');
    } catch (err) {
      throw new ConfigError([{ variable: 'WEBHOOK_SECRET_KEYS', problem: (err as Error).message }]);
    }
  };
}

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

/** The record of transactions known only from the acquirer's records, wired the same way. */
export function recordLostOver(dataSource: DataSource, logger: AppLogger): RecordLostTransaction {
  const ledger = LedgerRepository.over(dataSource);
  const events = new WriteNotification(NotificationOutbox.over(dataSource), logger);
  return new RecordLostTransaction(ledger, new RecordOperation(ledger, events, UnknownInquiries.over(dataSource), logger), events, logger);
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
  'payer-data': payerDataLine,
};

function answeredFromTheLine(command: OperatorCommand, argv: string[], io: CommandIo): number | undefined {
  const line = LINE_OR_ANSWER[command](argv, io);
  return typeof line === 'number' ? line : undefined;
}

/** The commands' names: each entry point that runs them lists them in its `--help` (a test holds it). */
export const OPERATOR_COMMAND_NAMES = Object.keys(OPERATOR_COMMANDS) as readonly OperatorCommand[];

const USAGE: Record<OperatorCommand, Pick<EntryPointCommand, 'rest' | 'what'>> = {
  notifications: { rest: 'list-failed|resend ...', what: 'webhook notifications that ran out of retries (docs/webhooks.md)' },
  transactions: { rest: 'unresolved|resolve|record-lost ...', what: 'transactions to reconcile with the acquirer (docs/operations/README.md)' },
  'payer-data': { rest: 'erase ...', what: "erase payers' personal data of given orders (docs/operations/README.md)" },
};

/** The commands as an entry point's `--help` lists them (each reads the rest of its line itself). */
export const OPERATOR_COMMAND_USAGE: readonly EntryPointCommand[] = OPERATOR_COMMAND_NAMES.map((name) => ({ name, ...USAGE[name], readsItsLine: true }));

export function isOperatorCommand(name: string | undefined): name is OperatorCommand {
  return name !== undefined && Object.hasOwn(OPERATOR_COMMANDS, name);
}

/** `main.js <command> ...` of order-transaction: the service's own database credentials only. */
export function runOperatorCommandMain(command: OperatorCommand, argv: string[]): Promise<void> {
  return runCommandMain(() => runOperatorCommand(command, argv, stdio));
}

/** The command's exit code; a bad configuration throws a ConfigError (the main's exit code 78). */
export async function runOperatorCommand(command: OperatorCommand, argv: string[], io: CommandIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const answered = answeredFromTheLine(command, argv, io);
  if (answered !== undefined) {
    return answered;
  }
  return withServiceDatabase(ORDER_TRANSACTION_SCHEMA, `order-transaction-${command}`, env, (dataSource) =>
    OPERATOR_COMMANDS[command](argv, { dataSource, io, webhookKeys: webhookKeysFrom(env.WEBHOOK_SECRET_KEYS) }),
  );
}

/** The same against the standalone profile's embedded database (started here if the gateway is not running). */
export async function runStandaloneOperatorCommand(command: OperatorCommand, argv: string[], standalone: StandaloneConfig): Promise<void> {
  const answered = answeredFromTheLine(command, argv, stdio);
  if (answered !== undefined) {
    process.exitCode = answered;
    return;
  }
  await runStandaloneCommand(standalone, (databaseUrl) =>
    withStandaloneSchema(databaseUrl, ORDER_TRANSACTION_SCHEMA, `${command}-command`, async (dataSource) => {
      // The gateway's own keys unless the environment overrides them, as the gateway reads them.
      const keys = process.env.WEBHOOK_SECRET_KEYS || standaloneWebhookSecretKeys(await loadStandaloneSecrets(standalone, ['webhookSecretKey']));
      return OPERATOR_COMMANDS[command](argv, { dataSource, io: stdio, webhookKeys: webhookKeysFrom(keys) });
    }),
  );
}
