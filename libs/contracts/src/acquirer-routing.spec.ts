import {
  browserPaymentAcquirerIdOf,
  cardAcquirerIdOf,
  PROVIDER_OF_SOURCE,
  PROVIDER_SIMULATOR_ACQUIRER_IDS,
  TEST_ACQUIRER_ID,
} from './acquirer-routing';
import { BROWSER_PAYMENT_PROVIDERS } from './messages/payer-journey.messages';
import { BROWSER_PAYMENT_SOURCE_OF_FUNDS_TYPES } from './requests/browser-payment.requests';

describe('acquirer routing', () => {
  it("routes a test merchant's card operations to the test acquirer, a live merchant's nowhere", () => {
    expect(TEST_ACQUIRER_ID).toBe('TEST_ACQUIRER');
    expect(cardAcquirerIdOf({ mode: 'TEST' })).toBe('TEST_ACQUIRER');
    expect(cardAcquirerIdOf({ mode: 'LIVE' })).toBeUndefined();
  });

  it("routes a test merchant's browser payments to the provider's simulator, a live merchant's nowhere", () => {
    expect(browserPaymentAcquirerIdOf({ mode: 'TEST' }, 'provider_a')).toBe('PROVIDER_A_SIMULATOR');
    expect(browserPaymentAcquirerIdOf({ mode: 'TEST' }, 'provider_b')).toBe('PROVIDER_B_SIMULATOR');
    expect(browserPaymentAcquirerIdOf({ mode: 'TEST' }, 'provider_c')).toBe('PROVIDER_C_SIMULATOR');
    for (const provider of BROWSER_PAYMENT_PROVIDERS) {
      expect(browserPaymentAcquirerIdOf({ mode: 'LIVE' }, provider)).toBeUndefined();
    }
    expect(Object.keys(PROVIDER_SIMULATOR_ACQUIRER_IDS).sort()).toEqual([...BROWSER_PAYMENT_PROVIDERS].sort());
  });

  it('names the provider of every browser payment sourceOfFunds.type', () => {
    expect(Object.keys(PROVIDER_OF_SOURCE).sort()).toEqual([...BROWSER_PAYMENT_SOURCE_OF_FUNDS_TYPES].sort());
    expect(PROVIDER_OF_SOURCE).toEqual({ PROVIDER_A: 'provider_a', PROVIDER_B: 'provider_b', PROVIDER_C: 'provider_c' });
  });
});
