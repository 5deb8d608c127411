import { Inject, Injectable } from '@nestjs/common';
import type { BrowserPaymentRow, ProviderRefundRow } from '@gateway/browser-payment/data-access';
import { ProviderRefundMessage, ProviderRefundReply } from '@gateway/contracts';
import { CLOCK, Clock } from '../browser-payment.options';
import { PAYMENT_STORE, PaymentStore } from '../payment/payment-store';
import { PaymentSteps } from '../payment/payment-steps';
import { amountIn, keptResult, namedPayment, onceAtProvider, replyOf, targetInvalid } from '../provider-operation/provider-operation';
import { ProviderAdapters } from '../providers/provider-adapters';

/**
 * `browser-payment.refund.v1`: the ledger's REFUND of an order a browser payment funded. The
 * money sits with the provider, so its adapter returns it; the ledger records the outcome
 * (and enforces the order's refund limits) itself. A refund transaction is refunded at most
 * once (onceAtProvider): the same request again answers the outcome already recorded, and the
 * provider is given the refund transaction id as the refund's idempotency key.
 */
@Injectable()
export class RefundAtProvider {
  constructor(
    @Inject(PAYMENT_STORE) private readonly store: PaymentStore,
    private readonly providers: ProviderAdapters,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly steps: PaymentSteps,
  ) {}

  async execute(message: ProviderRefundMessage): Promise<ProviderRefundReply> {
    const payment = await this.refunded(message);
    const amount = amountIn(payment, message);
    const adapter = this.providers.forPayment(payment);
    const refund = await onceAtProvider<ProviderRefundRow>({
      what: 'Refund',
      transactionId: message.transactionId,
      amount,
      kept: () => this.store.findRefund(payment.id, message.transactionId),
      perform: () => adapter.refund(payment.providerReference, message.transactionId, amount),
      keyUsedFor: (result) => result.refundKeyUsedFor,
      outcome: (result) => ({
        paymentId: payment.id,
        refundTransactionId: message.transactionId,
        amount: amount.toFixed(),
        currency: amount.currency,
        ...keptResult(result),
        createdAt: this.clock.now(),
      }),
      keep: (outcome) => this.store.insertRefund(outcome),
    });
    return replyOf(payment, refund);
  }

  /**
   * Only money the provider holds for the merchant can go back: a completed PAY (the ledger's
   * PAYMENT), or what a capture made here took of an authorisation (the ledger's CAPTURE, named
   * by its own transaction id).
   */
  private async refunded(message: ProviderRefundMessage): Promise<BrowserPaymentRow> {
    const payment = await namedPayment(this.store, this.steps, message);
    if (!payment) {
      const captured = await this.store.findCapturedPayment(message.envelope.merchant.id, message.orderId, message.targetTransactionId);
      if (!captured) {
        throw targetInvalid(message.targetTransactionId, 'The order has no browser payment, nor capture of one, with this transaction id.');
      }
      return captured;
    }
    if (payment.operation !== 'PAY' || payment.result !== 'SUCCESS') {
      throw targetInvalid(
        payment.transactionId,
        payment.operation === 'PAY'
          ? 'The browser payment did not complete: nothing was paid to refund.'
          : 'The browser payment only authorised the amount: nothing was captured to refund.',
      );
    }
    return payment;
  }
}
