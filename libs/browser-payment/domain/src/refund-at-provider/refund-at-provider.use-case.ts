import { Inject, Injectable } from '@nestjs/common';
import type { BrowserPaymentRow, ProviderRefundRow } from '@gateway/browser-payment/data-access';
import { GatewayError, ProviderRefundMessage, ProviderRefundReply } from '@gateway/contracts';
import { Money } from '@gateway/money';
import { CLOCK, Clock } from '../browser-payment.options';
import { paymentResponse } from '../payment/payment-response';
import { PAYMENT_STORE, PaymentStore } from '../payment/payment-store';
import { PaymentSteps } from '../payment/payment-steps';
import { ProviderAdapters } from '../providers/provider-adapters';

/**
 * `browser-payment.refund.v1`: the ledger's REFUND of an order a browser payment funded. The
 * money sits with the provider, so its adapter returns it; the ledger records the outcome
 * (and enforces the order's refund limits) itself. A refund transaction is refunded at most
 * once: the same request again answers the outcome already recorded, and the provider is given
 * the refund transaction id as the refund's idempotency key, so requests racing past the check
 * below, or a retry after one that died before its outcome was recorded, get the provider's one
 * refund instead of making another.
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
    const found = await this.store.findByTransaction(message.envelope.merchant.id, message.orderId, message.targetTransactionId);
    if (!found) {
      throw targetInvalid(message.targetTransactionId, 'The order has no browser payment with this transaction id.');
    }
    // The ledger refunds what it records as paid: a payment whose completion here was lost after
    // the ledger recorded it catches up first.
    const payment = await this.steps.catchUp(found, message.envelope);
    const amount = refundAmount(payment, message);
    const earlier = await this.store.findRefund(payment.id, message.transactionId);
    if (earlier) {
      return this.repeated(payment, earlier, amount);
    }
    const adapter = this.providers.forPayment(payment);
    const result = await adapter.refund(payment.providerReference, message.transactionId, amount);
    if (result.refundKeyUsedFor) {
      // Asked before for another amount (by a request whose outcome was never recorded here): that
      // refund stands at the provider, and this one moved nothing. Recorded, it would hide it.
      throw alreadyAsked(message.transactionId, result.refundKeyUsedFor);
    }
    const refund: ProviderRefundRow = {
      paymentId: payment.id,
      refundTransactionId: message.transactionId,
      amount: amount.toFixed(),
      currency: amount.currency,
      result: result.approved ? 'SUCCESS' : 'FAILURE',
      gatewayCode: result.gatewayCode,
      providerReference: result.reference ?? null,
      createdAt: this.clock.now(),
    };
    if (!(await this.store.insertRefund(refund))) {
      // A concurrent request for the same refund got there first: its outcome is the answer.
      return this.repeated(payment, (await this.store.findRefund(payment.id, message.transactionId))!, amount);
    }
    return reply(payment, refund, adapter.acquirerId);
  }

  private repeated(payment: BrowserPaymentRow, earlier: ProviderRefundRow, amount: Money): ProviderRefundReply {
    if (!Money.of(earlier.amount, earlier.currency).equals(amount)) {
      throw alreadyAsked(earlier.refundTransactionId, Money.of(earlier.amount, earlier.currency));
    }
    return reply(payment, earlier, this.providers.forPayment(payment).acquirerId);
  }
}

/** Only money the provider holds for the merchant can go back: a completed PAY, in its currency. */
function refundAmount(payment: BrowserPaymentRow, message: ProviderRefundMessage): Money {
  if (payment.operation !== 'PAY' || payment.result !== 'SUCCESS') {
    throw targetInvalid(
      payment.transactionId,
      payment.operation === 'PAY'
        ? 'The browser payment did not complete: nothing was paid to refund.'
        : 'The browser payment only authorised the amount: nothing was captured to refund.',
    );
  }
  if (message.currency !== payment.currency) {
    throw GatewayError.invalidField(
      'transaction.currency',
      'INVALID',
      `Value '${message.currency}' is invalid. The browser payment is in ${payment.currency}.`,
    );
  }
  return Money.of(message.amount, message.currency);
}

function alreadyAsked(refundTransactionId: string, amount: Money): GatewayError {
  return GatewayError.invalidRequest(`Refund '${refundTransactionId}' was already made at the provider for ${amount.toFixed()} ${amount.currency}.`);
}

function targetInvalid(transactionId: string, reason: string): GatewayError {
  return GatewayError.invalidField('transaction.targetTransactionId', 'INVALID', `Value '${transactionId}' is invalid. ${reason}`);
}

function reply(payment: BrowserPaymentRow, refund: ProviderRefundRow, acquirerId: string): ProviderRefundReply {
  return {
    result: refund.result,
    gatewayCode: refund.gatewayCode,
    ...(refund.providerReference ? { providerReference: refund.providerReference } : {}),
    sourceOfFunds: paymentResponse(payment, acquirerId).sourceOfFunds as Record<string, unknown>,
  };
}
