import 'reflect-metadata';
import { BROWSER_PAYMENT_SCHEMA } from '@gateway/browser-payment/data-access';
import { BrowserPaymentConfig, BrowserPaymentModule } from '@gateway/browser-payment/feature';
import { runServiceMain } from '@gateway/platform';

void runServiceMain({
  name: 'browser-payment',
  configClass: BrowserPaymentConfig,
  schema: BROWSER_PAYMENT_SCHEMA,
  featureModule: (config) => BrowserPaymentModule.forRoot(config),
});
