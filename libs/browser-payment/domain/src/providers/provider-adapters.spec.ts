import { browserPaymentAcquirerIdOf, defaultMerchantSettings, GatewayError, MerchantContext } from '@gateway/contracts';
import { InMemorySimulatorStore } from '../testing/in-memory-stores';
import { TestClock } from '../testing/browser-payment-test-bed';
import { ProviderAdapters } from './provider-adapters';

const merchant = (mode: 'TEST' | 'LIVE'): MerchantContext => ({ id: `${mode}M1`, mode, settings: defaultMerchantSettings() });

describe('ProviderAdapters', () => {
  const adapters = new ProviderAdapters(new InMemorySimulatorStore(), new TestClock());

  it('hands out the adapter of the acquirer browserPaymentAcquirerIdOf routes to, the one the edge names on a LOCK_FAILURE', () => {
    for (const provider of ['provider_a', 'provider_b', 'provider_c'] as const) {
      const adapter = adapters.forMerchant(merchant('TEST'), provider);
      expect(adapter.provider).toBe(provider);
      expect(adapter.acquirerId).toBe(browserPaymentAcquirerIdOf(merchant('TEST'), provider));
    }
    expect(adapters.forMerchant(merchant('TEST'), 'provider_b').acquirerId).toBe('PROVIDER_B_SIMULATOR');
  });

  it('refuses a live merchant, routed to no provider, with PROVIDER_NOT_CONFIGURED', () => {
    expect(browserPaymentAcquirerIdOf(merchant('LIVE'), 'provider_a')).toBeUndefined();
    let thrown: unknown;
    try {
      adapters.forMerchant(merchant('LIVE'), 'provider_a');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(GatewayError);
    expect((thrown as GatewayError).code).toBe('PROVIDER_NOT_CONFIGURED');
  });

  it('routes an existing payment by the mode it was initiated in, not the merchant\'s mode now', () => {
    expect(adapters.forPayment({ provider: 'provider_c', merchantMode: 'TEST' }).acquirerId).toBe('PROVIDER_C_SIMULATOR');
    expect(() => adapters.forPayment({ provider: 'provider_c', merchantMode: 'LIVE' })).toThrow(
      expect.objectContaining({ code: 'PROVIDER_NOT_CONFIGURED' }) as Error,
    );
  });
});
