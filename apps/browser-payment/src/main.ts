import 'reflect-metadata';
import { BROWSER_PAYMENT_SCHEMA } from '@gateway/browser-payment/data-access';
import { BrowserPaymentConfig, BrowserPaymentModule, isOperatorCommand, OPERATOR_COMMAND_USAGE, runOperatorCommandMain } from '@gateway/browser-payment/feature';
import { answerEntryPointLine, exitOnSignals, runServiceMain, stdio } from '@gateway/platform';

const USAGE = {
  command: 'node dist/apps/browser-payment/src/main.js',
  what: "browser-payment: browser payments with providers (initiate, the payer's redirect and return, confirm, refunds), answering requests over NATS.",
  settings: 'docs/operations/configuration.md (Every app, Apps with a database, browser-payment)',
  commands: [
    { name: 'migrate', rest: '', what: "apply the service's database migrations, then exit (the migration Job)", readsItsLine: false },
    ...OPERATOR_COMMAND_USAGE,
  ],
};

const [command, ...args] = process.argv.slice(2);
// `--help`, or an argument it does not take, is answered before anything is read or connected.
const answered = answerEntryPointLine(process.argv.slice(2), USAGE, stdio);
if (answered !== undefined) {
  process.exitCode = answered;
} else if (isOperatorCommand(command)) {
  // `payer-data erase ...`: an operator's command, then exit. Stopped halfway (its pod deleted,
  // Ctrl-C), it exits 143/130, as its container's PID 1 too.
  exitOnSignals('command');
  void runOperatorCommandMain(command, args);
} else {
  void runServiceMain({
    name: 'browser-payment',
    configClass: BrowserPaymentConfig,
    schema: BROWSER_PAYMENT_SCHEMA,
    featureModule: (config) => BrowserPaymentModule.forRoot(config),
  });
}
