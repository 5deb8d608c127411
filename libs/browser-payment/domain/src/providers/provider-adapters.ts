import { Inject, Injectable } from '@nestjs/common';
import { BrowserPaymentRow, PROVIDERS, ProviderName } from '@gateway/browser-payment/data-access';
import { browserPaymentAcquirerIdOf, GatewayError, MerchantContext, MerchantMode } from '@gateway/contracts';
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
 * PROVIDER_NOT_CONFIGURED before anything happens, never a simulated approval. A payment
 * keeps the route of the mode it was initiated in (`forPayment`).
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

  /** For a new payment (the initiate): the merchant's mode now routes it. */
  forMerchant(merchant: MerchantContext, provider: ProviderName): ProviderAdapter {
    return this.routed(merchant.mode, provider);
  }

  /**
   * For every later step of an existing payment, the payer's and the merchant's alike (the
   * journey, the expiry sweep, confirm, capture, void, refund): routed by the mode the payment
   * was initiated in, never by the merchant's mode now. A payment made while the merchant was
   * TEST is finished at the simulator that holds it after a switch to LIVE, and one made while
   * LIVE never reaches a simulator (docs/decisions/browser-payment-journey.md, amendment
   * 2026-11-26 (6)).
   */
  forPayment(payment: Pick<BrowserPaymentRow, 'provider' | 'merchantMode'>): ProviderAdapter {
    return this.routed(payment.merchantMode, payment.provider);
  }

  private routed(mode: MerchantMode, provider: ProviderName): ProviderAdapter {
    const simulator = this.simulators[provider];
    if (browserPaymentAcquirerIdOf({ mode }, provider) !== simulator.acquirerId) {
      throw new GatewayError('PROVIDER_NOT_CONFIGURED', {
        explanation: `Browser payments with ${provider} are not available for this merchant: no provider connection is configured.`,
      });
    }
    return simulator;
  }
}
