import type { BrowserPaymentRow, ProviderRefundRow } from '@gateway/browser-payment/data-access';
import { GatewayError, ProviderRefundReply, RequestEnvelope } from '@gateway/contracts';
import { Money } from '@gateway/money';
import { sourceOfFundsOf } from '../payment/payment-response';
import type { PaymentSteps } from '../payment/payment-steps';
import type { PaymentStore } from '../payment/payment-store';
import type { ProviderResult } from '../providers/provider-adapter';

/**
 * What the ledger's operations at the provider share (`browser-payment.refund.v1`,
 * `browser-payment.capture.v1`, `browser-payment.void.v1`): the payment they act on, the
 * currency check, the once-per-transaction-id rule, and the reply.
 */

/** The ledger's message naming an earlier transaction of the order. */
export interface TargetOfOperation {
  envelope: RequestEnvelope;
  orderId: string;
  targetTransactionId: string;
}

/**
 * The browser payment the ledger names, brought up to the ledger's record of it first (the ledger
 * acts on what it records as completed: a payment whose completion here was lost catches up).
 * Null when the order has no browser payment with that transaction id.
 */
export async function namedPayment(store: PaymentStore, steps: PaymentSteps, message: TargetOfOperation): Promise<BrowserPaymentRow | null> {
  const found = await store.findByTransaction(message.envelope.merchant.id, message.orderId, message.targetTransactionId);
  return found ? steps.catchUp(found, message.envelope) : null;
}

/** A completed AUTHORIZE: the only payment whose amount the provider holds authorised, to capture or void. */
export function requireAuthorised(payment: BrowserPaymentRow | null, targetTransactionId: string, doing: 'captured' | 'voided'): BrowserPaymentRow {
  if (!payment) {
    throw targetInvalid(targetTransactionId, 'The order has no browser payment with this transaction id.');
  }
  if (payment.operation !== 'AUTHORIZE') {
    throw targetInvalid(payment.transactionId, `The browser payment was a PAY: its money moved when the payer approved, and nothing is authorised to be ${doing}.`);
  }
  if (payment.result !== 'SUCCESS') {
    throw targetInvalid(payment.transactionId, `The browser payment did not complete: nothing was authorised to be ${doing}.`);
  }
  return payment;
}

/** The amount asked, in the payment's currency (the only one the provider holds it in). */
export function amountIn(payment: BrowserPaymentRow, message: { amount: string; currency: string }): Money {
  if (message.currency !== payment.currency) {
    throw GatewayError.invalidField(
      'transaction.currency',
      'INVALID',
      `Value '${message.currency}' is invalid. The browser payment is in ${payment.currency}.`,
    );
  }
  return Money.of(message.amount, message.currency);
}

export function targetInvalid(transactionId: string, reason: string): GatewayError {
  return GatewayError.invalidField('transaction.targetTransactionId', 'INVALID', `Value '${transactionId}' is invalid. ${reason}`);
}

/** What is kept here of an operation made at the provider: provider_refunds, provider_captures. */
export type KeptOutcome = Pick<ProviderRefundRow, 'amount' | 'currency' | 'result' | 'gatewayCode' | 'providerReference'>;

/** One keyed operation at the provider, as `onceAtProvider` runs it. */
export interface KeyedOperation<K extends KeptOutcome> {
  /** 'Refund', 'Capture': how the refusal of a reused transaction id names it. */
  what: string;
  /** The operation's transaction id on the order: its idempotency key at the provider. */
  transactionId: string;
  amount: Money;
  /** The outcome kept here under the transaction id, if any. */
  kept(): Promise<K | null>;
  /** The provider's call, with the transaction id as its key. */
  perform(): Promise<ProviderResult>;
  /** From the provider's answer: the amount its key was first used for, when that is another. */
  keyUsedFor(result: ProviderResult): Money | undefined;
  /** The provider's answer as it is kept. */
  outcome(result: ProviderResult): K;
  /** Keeps it; false when a concurrent request for the same transaction id kept one first. */
  keep(outcome: K): Promise<boolean>;
}

/**
 * An operation moving money at the provider (a refund, a capture), made at most once per
 * transaction id. The same request again answers the outcome kept here; otherwise the provider
 * is asked with the transaction id as the operation's idempotency key, so requests racing past
 * that check, or a retry after one that died before its outcome was kept, get the provider's one
 * operation instead of another. An insert that loses to a concurrent request's answers that
 * one's outcome. A request for another amount than the first under its id is refused (400) and
 * keeps nothing: the first operation stands at the provider, and kept as a FAILURE this one would
 * hide it. The ledger releases its reservation on that 400, since this request moved nothing.
 */
export async function onceAtProvider<K extends KeptOutcome>(operation: KeyedOperation<K>): Promise<K> {
  const earlier = await operation.kept();
  if (earlier) {
    return ofSameAmount(operation, earlier);
  }
  const result = await operation.perform();
  const usedFor = operation.keyUsedFor(result);
  if (usedFor) {
    // Asked before for another amount, by a request whose outcome was never kept here.
    throw alreadyMade(operation, usedFor);
  }
  const outcome = operation.outcome(result);
  if (!(await operation.keep(outcome))) {
    return ofSameAmount(operation, (await operation.kept())!);
  }
  return outcome;
}

function ofSameAmount<K extends KeptOutcome>(operation: KeyedOperation<K>, earlier: K): K {
  const amount = Money.of(earlier.amount, earlier.currency);
  if (!amount.equals(operation.amount)) {
    throw alreadyMade(operation, amount);
  }
  return earlier;
}

function alreadyMade(operation: KeyedOperation<KeptOutcome>, amount: Money): GatewayError {
  return GatewayError.invalidRequest(`${operation.what} '${operation.transactionId}' was already made at the provider for ${amount.toFixed()} ${amount.currency}.`);
}

/** The provider's answer as kept here, in the ledger's terms. */
export function keptResult(result: ProviderResult): Pick<KeptOutcome, 'result' | 'gatewayCode' | 'providerReference'> {
  return { result: result.approved ? 'SUCCESS' : 'FAILURE', gatewayCode: result.gatewayCode, providerReference: result.reference ?? null };
}

/** The answer to the ledger: the outcome, the provider's reference, and the payment's sourceOfFunds as responses show it. */
export function replyOf(payment: BrowserPaymentRow, outcome: Pick<KeptOutcome, 'result' | 'gatewayCode' | 'providerReference'>): ProviderRefundReply {
  return {
    result: outcome.result,
    gatewayCode: outcome.gatewayCode,
    ...(outcome.providerReference ? { providerReference: outcome.providerReference } : {}),
    sourceOfFunds: sourceOfFundsOf(payment),
  };
}
