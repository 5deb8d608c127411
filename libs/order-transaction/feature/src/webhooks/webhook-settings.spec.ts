import { randomBytes } from 'node:crypto';
import { loadConfig } from '@gateway/platform';
import { OrderTransactionConfig } from '../order-transaction.config';
import { loadWebhookSettings } from './webhook-settings';

const BASE = {
  DATABASE_URL: 'postgres://ot@127.0.0.1/gw',
  ORDER_TRANSACTION_MODE: 'dispatch',
  WEBHOOK_SECRET_KEYS: `t1:${randomBytes(32).toString('base64')}`,
};

describe('loadWebhookSettings', () => {
  it('reads the retention in days and the retry window in hours', () => {
    const settings = loadWebhookSettings(loadConfig(OrderTransactionConfig, { ...BASE, WEBHOOK_RETENTION_DAYS: '30', WEBHOOK_RETRY_WINDOW_HOURS: '24' }));
    expect(settings.retentionMs).toBe(30 * 24 * 3_600_000);
    expect(settings.dispatch.retry.windowMs).toBe(24 * 3_600_000);
  });

  it('lets no notification reach a private address unless configured', () => {
    expect(loadWebhookSettings(loadConfig(OrderTransactionConfig, BASE)).dispatch.allowNonPublicForTestMerchants).toBe(false);
    expect(loadWebhookSettings(loadConfig(OrderTransactionConfig, { ...BASE, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })).dispatch.allowNonPublicForTestMerchants).toBe(true);
  });
});
