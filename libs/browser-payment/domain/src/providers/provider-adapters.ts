import { Inject, Injectable } from '@nestjs/common';
import { BrowserPaymentRow, PROVIDERS, ProviderName } from '@gateway/browser-payment/data-access';
import { browserPaymentAcquirerIdOf, GatewayError, MerchantContext } from '@gateway/contracts';
import { CLOCK, Clock } from '../browser-payment.options';
import type { ProviderAdapter } from './provider-adapter';
import { SimulatedProvider } from './simulator/simulated-provider';
import { SIMULATOR_PROFILES } from './simulator/simulator-profiles';
import { SIMULATOR_STORE, SimulatorStore } from './simulator/simulator-store';

export function isProviderName(value: string): value is ProviderName {
  return (PROVIDERS as readonly string[]).includes(value);
}

/**
 * Which adapter serves a merchant's payments at a provider, as `browserPaymentAcquirerIdOf`
 * (contracts) routes them; the edge reads the same function to name the acquirer of an
 * initiate it refused with LOCK_FAILURE. Test merchants get the built-in simulators; no real
 * provider is connected to this gateway, so a live merchant (routed to none) gets
 * PROVIDER_NOT_CONFIGURED before anything happens, never a simulated approval.
 */
@Injectable()
export class ProviderAdapters {
  private readonly simulators: Record<ProviderName, ProviderAdapter>;

  constructor(@Inject(SIMULATOR_STORE) store: SimulatorStore, @Inject(CLOCK) clock: Clock) {
    this.simulators = {
      provider_a: new SimulatedProvider(SIMULATOR_PROFILES.provider_a, store, clock),
      provider_b: new SimulatedProvider(SIMULATOR_PROFILES.provider_b, store, clock),
      provider_c: new SimulatedProvider(SIMULATOR_PROFILES.provider_c, store, clock),
    };
  }

  forMerchant(merchant: MerchantContext, provider: ProviderName): ProviderAdapter {
    const simulator = this.simulators[provider];
    if (browserPaymentAcquirerIdOf(merchant, provider) !== simulator.acquirerId) {
      throw new GatewayError('PROVIDER_NOT_CONFIGURED', {
        explanation: `Browser payments with ${provider} are not available for this merchant: no provider connection is configured.`,
      });
    }
    return simulator;
  }

  /**
   * The adapter of the provider that holds an existing payment (only simulators create payments
   * here), for the payer's journey and its settlement, which end what the provider holds. The
   * merchant's own operations on a payment (confirm, capture, void, refund) take `forMerchant`
   * with the envelope's merchant: a merchant switched to LIVE moves nothing more at a simulator.
   */
  forPayment(payment: Pick<BrowserPaymentRow, 'provider'>): ProviderAdapter {
    return this.simulators[payment.provider];
  }
}
