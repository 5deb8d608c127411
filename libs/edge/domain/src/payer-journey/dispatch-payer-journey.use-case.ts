import { Inject, Injectable } from '@nestjs/common';
import {
  GatewayError,
  PayerDecision,
  PayerDecisionMessage,
  PayerReply,
  PayerResolveReply,
  PayerStepMessage,
  PayerTokenMessage,
  SUBJECTS,
} from '@gateway/contracts';
import { MessageBus } from '@gateway/platform';
import { MerchantDirectory, toMerchantContext } from '../merchants/merchant-directory';
import { OrderLocks } from '../order-operation/order-locks';

export const PAYER_JOURNEY_OPTIONS = Symbol('PAYER_JOURNEY_OPTIONS');

export interface PayerJourneyOptions {
  /**
   * How long a payer's step waits for the order's lock. Longer than a merchant's wait: the
   * alternative is an error page in front of a paying customer, not a retryable API answer.
   */
  waitMs: number;
  ttlMs: number;
  /** The API version the steps are recorded under (a payer's path has none). */
  apiVersion: number;
}

export type PayerStep = 'redirect' | 'return';

/** What the edge itself answers a payer with when no page came from browser-payment. */
export type PayerOutcome = PayerReply | { kind: 'unavailable' } | { kind: 'not-found' } | { kind: 'merchant-disabled' };

const STEP_SUBJECTS: Record<PayerStep, string> = {
  redirect: SUBJECTS.browserPayment.payerRedirect,
  return: SUBJECTS.browserPayment.payerReturn,
};

/** Path segments the edge forwards; anything else is a link that cannot exist. */
const PROVIDER_SEGMENT = /^[a-z0-9_]{1,20}$/;
const TOKEN_SEGMENT = /^[\x21-\x7e]{1,80}$/;

/**
 * The payer's browser on /bpui/<provider>/...: no merchant credentials, only the payment's
 * redirect token, which browser-payment owns and checks. The steps that change the payment
 * (leaving for the provider, coming back) run under the order's lock like every operation on
 * the order (ARCHITECTURE 4.9): resolve the token to its order, lock it, then forward the step
 * with the lock's fencing token and the merchant's profile.
 */
@Injectable()
export class DispatchPayerJourney {
  constructor(
    private readonly bus: MessageBus,
    private readonly locks: OrderLocks,
    private readonly merchants: MerchantDirectory,
    @Inject(PAYER_JOURNEY_OPTIONS) private readonly options: PayerJourneyOptions,
  ) {}

  async step(step: PayerStep, provider: string, token: string, requestId: string): Promise<PayerOutcome> {
    if (!wellFormed(provider, token)) {
      return { kind: 'not-found' };
    }
    const resolved = await this.bus.request<PayerResolveReply>(SUBJECTS.browserPayment.payerResolve, {
      requestId,
      provider,
      token,
      ...(step === 'return' ? { returning: true } : {}),
    } satisfies PayerTokenMessage);
    if (resolved.kind === 'page') {
      return resolved;
    }
    const merchant = await this.merchants.find(resolved.merchantId);
    if (!merchant) {
      return { kind: 'not-found' };
    }
    // A disabled merchant takes no new payment: its payer is not sent on to the provider. One
    // already there comes back as usual, so what the provider holds is recorded (the sweep would
    // act on it too): docs/decisions/browser-payment-journey.md, amendment 2026-11-26 (5, disabled merchants).
    if (step === 'redirect' && merchant.status !== 'ENABLED') {
      return { kind: 'merchant-disabled' };
    }
    const lease = await this.locks.acquire(merchant.id, resolved.orderId, this.options);
    if (!lease) {
      return { kind: 'unavailable' };
    }
    try {
      const message: PayerStepMessage = {
        envelope: {
          merchant: toMerchantContext(merchant),
          apiVersion: this.options.apiVersion,
          requestId,
          authMethod: 'PAYER',
          fencingToken: lease.fencingToken,
        },
        provider,
        token,
      };
      return await this.bus.request<PayerReply>(STEP_SUBJECTS[step], message);
    } catch (err) {
      // Our lease lapsed and another operation took the order: nothing was changed.
      if (err instanceof GatewayError && err.code === 'ORDER_LOCK_LOST') {
        return { kind: 'unavailable' };
      }
      throw err;
    } finally {
      this.locks.release(lease);
    }
  }

  /** The payer's choice on a simulator's page: the provider's side, no order lock needed. */
  async decide(provider: string, token: string, decision: PayerDecision, requestId: string): Promise<PayerOutcome> {
    if (!wellFormed(provider, token)) {
      return { kind: 'not-found' };
    }
    return this.bus.request<PayerReply>(SUBJECTS.browserPayment.payerDecide, {
      requestId,
      provider,
      token,
      decision,
    } satisfies PayerDecisionMessage);
  }
}

function wellFormed(provider: string, token: string): boolean {
  return PROVIDER_SEGMENT.test(provider) && TOKEN_SEGMENT.test(token);
}
