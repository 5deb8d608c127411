import { INTERACTION_STATUSES } from '@gateway/browser-payment/data-access';
import type { BrowserPaymentRow, PaymentChanges, PaymentResult } from '@gateway/browser-payment/data-access';
import { jsonObjectAt } from '@gateway/contracts';
import type { JsonObject } from '@gateway/contracts';
import { Money } from '@gateway/money';

const COMPLETED_RESULTS: readonly PaymentResult[] = ['SUCCESS', 'FAILURE'];

/**
 * The end of `payment` as the ledger recorded it, from the stored response of the transaction
 * (`body`, as retrieval reads it): the changes that bring the payment here to it, or null when
 * the ledger holds no end of it (no transaction, a journey still under way, or a body that is
 * not a browser payment of this transaction in its currency). An end is a final result: a
 * completion (SUCCESS, or FAILURE when the provider refused the execution), or a journey that
 * failed before it (the payer cancelled at the return, the gateway timed it out), which keeps
 * the interaction status where it stopped.
 *
 * The amount is the transaction's, a JSON number the ledger rendered from its exact decimal:
 * every amount the API accepts has at most 15 significant digits, which a JSON number carries
 * exactly, and Money refuses any that lost its currency's minor units.
 */
export function recordedEnd(body: JsonObject | null, payment: BrowserPaymentRow): PaymentChanges | null {
  const interaction = jsonObjectAt(body, 'browserPayment', 'interaction');
  const transaction = jsonObjectAt(body, 'transaction');
  const status = INTERACTION_STATUSES.find((known) => known === interaction?.status);
  if (!body || !status || !transaction || !COMPLETED_RESULTS.includes(body.result as PaymentResult)) {
    return null;
  }
  if (transaction.id !== payment.transactionId || transaction.currency !== payment.currency || typeof transaction.amount !== 'number') {
    return null;
  }
  const gatewayCode = jsonObjectAt(body, 'response')?.gatewayCode;
  return {
    interactionStatus: status,
    result: body.result as PaymentResult,
    ...(typeof gatewayCode === 'string' ? { gatewayCode } : {}),
    ...(gatewayCode === 'CANCELLED' ? { payerOutcome: 'CANCELLED' as const } : {}),
    amount: Money.of(String(transaction.amount), payment.currency).toFixed(),
    ...timeOf(interaction!, 'timeReturned'),
    ...timeOf(interaction!, 'timeCompleted'),
  };
}

function timeOf(interaction: JsonObject, key: 'timeReturned' | 'timeCompleted'): Partial<Record<typeof key, Date>> {
  const time = interaction[key];
  return typeof time === 'string' ? { [key]: new Date(time) } : {};
}
