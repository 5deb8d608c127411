import { BROWSER_PAYMENT_SCHEMA, BrowserPaymentPayerDataRepository } from '@gateway/browser-payment/data-access';
import { EraseBrowserPaymentPayerData } from '@gateway/browser-payment/domain';
import { CommandIo, commandLogger, type EntryPointCommand, runCommandMain, stdio, withServiceDatabase } from '@gateway/platform';
import type { DataSource } from 'typeorm';
import { payerDataLine, runPayerDataCommand } from './payer-data.command';

/** browser-payment's erasure of a payer's data over `dataSource` (its own schema), as the mains wire it. */
export function browserPaymentPayerDataErasure(dataSource: DataSource, logger = commandLogger('browser-payment')): EraseBrowserPaymentPayerData {
  return new EraseBrowserPaymentPayerData(BrowserPaymentPayerDataRepository.over(dataSource), logger);
}

/**
 * The operator's commands of browser-payment's image, over its own schema, as order-transaction's
 * are: `main.js payer-data erase ...` (a payer's erasure request, docs/operations/README.md).
 * The standalone gateway runs its payer-data with the ledger's, in one invocation.
 */
const OPERATOR_COMMANDS = {
  'payer-data': {
    line: payerDataLine,
    run: (argv: string[], dataSource: DataSource, io: CommandIo) => runPayerDataCommand(argv, browserPaymentPayerDataErasure(dataSource), io),
    usage: { rest: 'erase ...', what: "erase payers' personal data of given orders (docs/operations/README.md)" },
  },
};

export type OperatorCommand = keyof typeof OPERATOR_COMMANDS;

/** The commands' names: each entry point that runs them lists them in its `--help` (a test holds it). */
export const OPERATOR_COMMAND_NAMES = Object.keys(OPERATOR_COMMANDS) as readonly OperatorCommand[];

/** The commands as an entry point's `--help` lists them (each reads the rest of its line itself). */
export const OPERATOR_COMMAND_USAGE: readonly EntryPointCommand[] = OPERATOR_COMMAND_NAMES.map((name) => ({
  name,
  ...OPERATOR_COMMANDS[name].usage,
  readsItsLine: true,
}));

export function isOperatorCommand(name: string | undefined): name is OperatorCommand {
  return name !== undefined && Object.hasOwn(OPERATOR_COMMANDS, name);
}

/** `main.js <command> ...` of browser-payment: the service's own database credentials only. */
export function runOperatorCommandMain(command: OperatorCommand, argv: string[]): Promise<void> {
  return runCommandMain(() => runOperatorCommand(command, argv, stdio));
}

/**
 * The command's exit code; a bad configuration throws a ConfigError (the main's exit code 78).
 * `--help`, no subcommand, or a line that does not parse is answered before any configuration
 * is read or database opened: an operator reading the usage needs no credentials.
 */
export async function runOperatorCommand(command: OperatorCommand, argv: string[], io: CommandIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { line, run } = OPERATOR_COMMANDS[command];
  const answered = line(argv, io);
  if (typeof answered === 'number') {
    return answered;
  }
  return withServiceDatabase(BROWSER_PAYMENT_SCHEMA, `browser-payment-${command}`, env, (dataSource) => run(argv, dataSource, io));
}
