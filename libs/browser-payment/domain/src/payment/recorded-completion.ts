import type { BrowserPaymentRow, PaymentChanges, PaymentResult } from '@gateway/browser-payment/data-access';
import { jsonObjectAt } from '@gateway/contracts';
import type { JsonObject } from '@gateway/contracts';
import { Money } from '@gateway/money';

const COMPLETED_RESULTS: readonly PaymentResult[] = ['SUCCESS', 'FAILURE'];

/**
 * The completion of `payment` as the ledger recorded it, from the stored response of the
 * transaction (`body`, as retrieval reads it): the changes that bring the payment here to it,
 * or null when the ledger holds no completion of it (no transaction, a journey still under
 * way, or a body that is not a completed browser payment of this transaction in its currency).
 *
 * The amount is the transaction's, a JSON number the ledger rendered from its exact decimal:
 * every amount the API accepts has at most 15 significant digits, which a JSON number carries
 * exactly, and Money refuses any that lost its currency's minor units.
 */
export function recordedCompletion(body: JsonObject | null, payment: BrowserPaymentRow): PaymentChanges | null {
  const interaction = jsonObjectAt(body, 'browserPayment', 'interaction');
  const transaction = jsonObjectAt(body, 'transaction');
  if (!body || interaction?.status !== 'COMPLETED' || !transaction || !COMPLETED_RESULTS.includes(body.result as PaymentResult)) {
    return null;
  }
  if (transaction.id !== payment.transactionId || transaction.currency !== payment.currency || typeof transaction.amount !== 'number') {
    return null;
  }
  const gatewayCode = jsonObjectAt(body, 'response')?.gatewayCode;
  const timeCompleted = interaction.timeCompleted;
  return {
    interactionStatus: 'COMPLETED',
    result: body.result as PaymentResult,
    ...(typeof gatewayCode === 'string' ? { gatewayCode } : {}),
    amount: Money.of(String(transaction.amount), payment.currency).toFixed(),
    ...(typeof timeCompleted === 'string' ? { timeCompleted: new Date(timeCompleted) } : {}),
  };
}
