import { Global, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { defaultMerchantSettings } from '@gateway/contracts';
import { Metrics } from '@gateway/platform';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { ACQUIRER_REQUESTS_METRIC, AcquirerRegistry } from './acquirer-registry';
import { AcquirerModule } from './acquirer.module';
import { parseCardExpiry } from './card/card-expiry';
import { Pan } from './card/pan';

/** Stands in for PlatformModule, which provides Metrics globally in every app. */
@Global()
@Module({ providers: [Metrics], exports: [Metrics] })
class GlobalMetricsModule {}

describe('AcquirerModule', () => {
  it("provides the registry, counting calls on the app's Metrics registry served at /metrics", async () => {
    const app = await Test.createTestingModule({ imports: [GlobalMetricsModule, AcquirerModule] }).compile();
    const registry = app.get(AcquirerRegistry);
    const connector = registry.forMerchant({
      id: 'TESTMERCHANT',
      mode: 'TEST',
      settings: defaultMerchantSettings(),
    });
    await connector.verify({
      merchantId: 'TESTMERCHANT',
      orderId: 'order-1',
      transactionId: 'verify-1',
      currency: 'USD',
      card: {
        number: Pan.of(TEST_CARD),
        expiry: parseCardExpiry(TEST_EXPIRY.UNKNOWN.month, TEST_EXPIRY.UNKNOWN.year),
      },
    });
    expect(await app.get(Metrics).registry.metrics()).toContain(
      `${ACQUIRER_REQUESTS_METRIC}{acquirer="TEST_ACQUIRER",operation="VERIFY",outcome="UNKNOWN"} 1`,
    );
    await app.close();
  });
});
