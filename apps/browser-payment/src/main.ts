import 'reflect-metadata';
import { BROWSER_PAYMENT_SCHEMA } from '@gateway/browser-payment/data-access';
import { BrowserPaymentConfig, BrowserPaymentModule, isOperatorCommand, runOperatorCommandMain } from '@gateway/browser-payment/feature';
import { exitOnSignals, runServiceMain } from '@gateway/platform';

const [command, ...args] = process.argv.slice(2);
if (isOperatorCommand(command)) {
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
