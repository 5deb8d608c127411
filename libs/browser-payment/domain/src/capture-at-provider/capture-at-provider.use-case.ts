import { Inject, Injectable } from '@nestjs/common';
import type { ProviderCaptureRow } from '@gateway/browser-payment/data-access';
import { ProviderCaptureMessage, ProviderCaptureReply } from '@gateway/contracts';
import { CLOCK, Clock } from '../browser-payment.options';
import { PAYMENT_STORE, PaymentStore } from '../payment/payment-store';
import { PaymentSteps } from '../payment/payment-steps';
import { amountIn, keptResult, namedPayment, onceAtProvider, replyOf, requireAuthorised } from '../provider-operation/provider-operation';
import { ProviderAdapters } from '../providers/provider-adapters';

/**
 * `browser-payment.capture.v1`: the ledger's CAPTURE of a browser payment initiated with
 * AUTHORIZE (spec, browser payment rule 4). The ledger has reserved the capture within its
 * capture limit (card-payment-rules.md) and records the outcome; the money is authorised at the
 * provider, so its adapter captures it there, once per capture transaction (onceAtProvider: the
 * capture's transaction id is its idempotency key at the provider). The provider holds the
 * authorised amount and declines a capture beyond what is left of it.
 */
@Injectable()
export class CaptureAtProvider {
  constructor(
    @Inject(PAYMENT_STORE) private readonly store: PaymentStore,
    private readonly providers: ProviderAdapters,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly steps: PaymentSteps,
  ) {}

  async execute(message: ProviderCaptureMessage): Promise<ProviderCaptureReply> {
    const payment = requireAuthorised(await namedPayment(this.store, this.steps, message), message.targetTransactionId, 'captured');
    const amount = amountIn(payment, message);
    const adapter = this.providers.forPayment(payment);
    const capture = await onceAtProvider<ProviderCaptureRow>({
      what: 'Capture',
      transactionId: message.transactionId,
      amount,
      kept: () => this.store.findCapture(payment.id, message.transactionId),
      perform: () => adapter.capture(payment.providerReference, message.transactionId, amount),
      keyUsedFor: (result) => result.captureKeyUsedFor,
      outcome: (result) => ({
        paymentId: payment.id,
        captureTransactionId: message.transactionId,
        amount: amount.toFixed(),
        currency: amount.currency,
        ...keptResult(result),
        createdAt: this.clock.now(),
      }),
      keep: (outcome) => this.store.insertCapture(outcome),
    });
    return replyOf(payment, capture);
  }
}
