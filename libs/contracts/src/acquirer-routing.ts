import type { MerchantContext } from './merchant-context';
import type { BrowserPaymentProvider } from './messages/payer-journey.messages';
import type { BROWSER_PAYMENT_SOURCE_OF_FUNDS_TYPES } from './requests/browser-payment.requests';

/**
 * Which acquirer an operation goes to, and the id it has in responses (`transaction.acquirer.id`).
 * It follows from the merchant's profile and the request alone, so the services that call the
 * acquirer (AcquirerRegistry, browser-payment's ProviderAdapters) and the edge, which names it
 * on an operation it refused before any service saw it (a LOCK_FAILURE), read it here.
 * `undefined`: the merchant has none configured (docs/decisions/live-merchants-without-acquirer.md).
 */

/** The built-in test acquirer: test merchants' card operations. */
export const TEST_ACQUIRER_ID = 'TEST_ACQUIRER';

/** The built-in simulators: test merchants' browser payments, one per provider. */
export const PROVIDER_SIMULATOR_ACQUIRER_IDS: Readonly<Record<BrowserPaymentProvider, string>> = {
  provider_a: 'PROVIDER_A_SIMULATOR',
  provider_b: 'PROVIDER_B_SIMULATOR',
  provider_c: 'PROVIDER_C_SIMULATOR',
};

/** A browser payment's `sourceOfFunds.type` -> the provider that serves it. */
export const PROVIDER_OF_SOURCE: Readonly<Record<(typeof BROWSER_PAYMENT_SOURCE_OF_FUNDS_TYPES)[number], BrowserPaymentProvider>> = {
  PROVIDER_A: 'provider_a',
  PROVIDER_B: 'provider_b',
  PROVIDER_C: 'provider_c',
};

/**
 * The acquirer of the merchant's card operations (VERIFY, AUTHORIZE, PAY, CAPTURE, VOID, a
 * card REFUND, whether the card is given, a token's or a session's): the test acquirer for a
 * test merchant; none for a live one, since no real acquirer is connected.
 */
export function cardAcquirerIdOf(merchant: Pick<MerchantContext, 'mode'>): string | undefined {
  return merchant.mode === 'TEST' ? TEST_ACQUIRER_ID : undefined;
}

/** The acquirer of the merchant's browser payments at `provider`: its simulator for a test merchant; none for a live one. */
export function browserPaymentAcquirerIdOf(merchant: Pick<MerchantContext, 'mode'>, provider: BrowserPaymentProvider): string | undefined {
  return merchant.mode === 'TEST' ? PROVIDER_SIMULATOR_ACQUIRER_IDS[provider] : undefined;
}
