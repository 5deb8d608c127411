import { Inject, Injectable } from '@nestjs/common';
import { GatewayError, ProviderCaptureMessage, ProviderCaptureReply, ProviderVoidMessage } from '@gateway/contracts';
import { MessageBus } from '@gateway/platform';
import { REFUND_CALL_TIMEOUT_MS } from '../refund-order/refund-side-effects';
import { outcomeOfProvider } from '../refund-order/refund-outcome';
import type { CardOutcome } from './card-outcome';

/** What browser-payment is asked for a follow-on operation on a provider's authorisation (provider-capture.messages.ts). */
export interface ProviderFollowOnCall {
  subject: string;
  message: ProviderCaptureMessage | ProviderVoidMessage;
}

/**
 * CAPTURE and VOID of a browser payment's authorisation: the money is authorised at the
 * provider, whose adapter belongs to browser-payment, so the ledger asks browser-payment to
 * capture or void there, as it asks it to refund a provider-funded order (RefundSideEffects).
 * Throws what browser-payment threw; RunReservedOperation decides whether anything can have
 * happened. Waits as long as a refund does for browser-payment (REFUND_CALL_TIMEOUT_MS).
 */
@Injectable()
export class ProviderFollowOn {
  constructor(
    private readonly bus: MessageBus,
    @Inject(REFUND_CALL_TIMEOUT_MS) private readonly timeoutMs: number,
  ) {}

  async call({ subject, message }: ProviderFollowOnCall): Promise<CardOutcome> {
    return outcomeOfProvider(await this.bus.request<ProviderCaptureReply>(subject, message, { timeoutMs: this.timeoutMs }));
  }

  /** The clear answer when browser-payment is not there: nothing moved, and the same id may be retried. */
  unavailable(apiOperation: 'CAPTURE' | 'VOID', doing: string): GatewayError {
    const what = apiOperation === 'CAPTURE' ? 'Captures' : 'Voids';
    return new GatewayError('SERVER_BUSY', {
      explanation: `${what} of browser payment authorizations are not available at the moment (browser-payment did not answer). Nothing was ${doing}; the request may be retried with the same transaction id.`,
      retryAfterSeconds: 5,
    });
  }
}
