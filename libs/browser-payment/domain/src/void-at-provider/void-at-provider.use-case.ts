import { Inject, Injectable } from '@nestjs/common';
import { ProviderCaptureReply, ProviderVoidMessage } from '@gateway/contracts';
import { PAYMENT_STORE, PaymentStore } from '../payment/payment-store';
import { PaymentSteps } from '../payment/payment-steps';
import { keptResult, namedPayment, replyOf, requireAuthorised } from '../provider-operation/provider-operation';
import { ProviderAdapters } from '../providers/provider-adapters';

/**
 * `browser-payment.void.v1`: the ledger's VOID of a browser payment's authorisation (AUTHORIZE)
 * nothing was captured of: the provider releases the authorised amount. The ledger has reserved
 * the void (no capture of the authorisation stands: the chain rule, card-payment-rules.md) and
 * records the outcome. Nothing is kept here: an authorisation is voided at most once, and the
 * provider answers a repeat (a retry after a lost answer) as voided, moving nothing; a capture
 * that reached the provider first makes it decline.
 */
@Injectable()
export class VoidAtProvider {
  constructor(
    @Inject(PAYMENT_STORE) private readonly store: PaymentStore,
    private readonly providers: ProviderAdapters,
    private readonly steps: PaymentSteps,
  ) {}

  async execute(message: ProviderVoidMessage): Promise<ProviderCaptureReply> {
    const payment = requireAuthorised(await namedPayment(this.store, this.steps, message), message.targetTransactionId, 'voided');
    const adapter = this.providers.forPayment(payment);
    const result = await adapter.voidAuthorization(payment.providerReference);
    return replyOf(payment, keptResult(result));
  }
}
