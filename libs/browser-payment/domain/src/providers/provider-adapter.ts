import type { BrowserPaymentRow, PayerOutcome, PaymentOperation, ProviderName } from '@gateway/browser-payment/data-access';
import type { JsonObject, PayerDecision, PayerReply } from '@gateway/contracts';
import type { Money } from '@gateway/money';

/**
 * One browser-payment provider (provider_a wallet, provider_b bank transfer, provider_c online
 * banking) as the use cases see it. A real provider's adapter would call its API; the
 * built-in simulators (SimulatedProvider) keep their own books in the service's database.
 */
export interface ProviderAdapter {
  readonly provider: ProviderName;
  /** `transaction.acquirer.id` of the payments it handles. */
  readonly acquirerId: string;

  /** Opens the payment at the provider (at initiate); its reference at the provider. */
  createPayment(spec: ProviderPaymentSpec): Promise<string>;

  /** What the payer's browser gets on leaving for the provider: the provider's page, or a redirect to it. */
  payerPage(context: ProviderPageContext): Promise<PayerReply>;

  /**
   * When the payer is back at the gateway: whether the provider has the payer's approval. A
   * payer who comes back without deciding has abandoned the payment: it can no longer be approved.
   */
  payerReturned(reference: string): Promise<PayerReturn>;

  /**
   * The most a merchant's CONFIRM_BROWSER_PAYMENT may execute of a payment the payer approved
   * for `approved` (same currency, at least `approved`): how far the provider lets an execution
   * go above the payer's approval, as real wallets cap it (one allows 115% of the approved
   * amount, and no more than 75 USD above it). A provider that allows no increase answers
   * `approved`. Any amount below it (above zero) is allowed. Asked before the execution: a
   * confirm above it is refused and the provider never sees it (ConfirmBrowserPayment).
   */
  highestConfirmable(approved: Money): Money;

  /** Authorises (AUTHORIZE) or moves (PAY) `amount` of an approved payment; safe to repeat. */
  execute(reference: string, operation: PaymentOperation, amount: Money): Promise<ProviderResult>;

  /** Takes back an execution the ledger refused to record. */
  reverse(reference: string): Promise<void>;

  /**
   * Lets go of the payer's approval of a payment nobody executed (the merchant's confirm window
   * passed), so that no later execution can follow: the provider declines one from then on. True
   * when nothing is executed at the provider (released now, or earlier, or never approved); false
   * when the payment is executed there (an execution whose record has not landed yet), which is
   * left as it is. Safe to repeat. A real wallet's adapter voids the approved order at the provider.
   */
  releaseApproval(reference: string): Promise<boolean>;

  /**
   * Moves `amount` of an authorised payment (executed with AUTHORIZE), as the capture
   * `captureId`: its idempotency key at the provider, the capture's transaction id on the order,
   * with the same promises as a refund's key (below): one capture per key, a repeat answered with
   * the first outcome and moving nothing, a repeat asking another amount declined with
   * `captureKeyUsedFor`. Captures in parts add up to the authorised amount at most; beyond it,
   * or of a payment not authorised (or voided), the provider declines. A provider that takes one
   * capture per authorisation declines the second; the ledger then records that decline.
   */
  capture(reference: string, captureId: string, amount: Money): Promise<ProviderResult>;

  /**
   * Releases an authorisation nothing was captured of, whole (the merchant's VOID). Voiding is
   * idempotent by nature, so it takes no key: a repeat finds the authorisation voided and is
   * approved again, moving nothing. Declined once anything was captured, or for a payment that
   * is not an authorisation. Not `reverse`, which also takes back a captured execution.
   */
  voidAuthorization(reference: string): Promise<ProviderResult>;

  /**
   * Returns `amount` of a captured payment to the payer, as the refund `refundId`: its
   * idempotency key at the provider, the refund's transaction id on the order (unique within the
   * payment; an adapter whose provider scopes keys wider, per account, sends it qualified by
   * `reference`). The provider makes one refund per key and answers a repeat (a retry, a
   * concurrent copy, a request after one whose answer was lost) with the first outcome, approved
   * (the same refund reference) or declined, moving nothing. A repeat asking another amount is
   * refused and moves nothing: declined with `refundKeyUsedFor`. An adapter whose provider has
   * no idempotency keys must not be used for refunds: a retry would refund twice.
   */
  refund(reference: string, refundId: string, amount: Money): Promise<ProviderResult>;
}

/** The built-in simulators also take the payer's decision on their own page. */
export interface SimulatedProviderAdapter extends ProviderAdapter {
  /** False when the payer had already decided (a double click, the back button). */
  decide(reference: string, decision: PayerDecision): Promise<boolean>;
}

export function isSimulated(adapter: ProviderAdapter): adapter is SimulatedProviderAdapter {
  return typeof (adapter as SimulatedProviderAdapter).decide === 'function';
}

export interface ProviderPaymentSpec {
  operation: PaymentOperation;
  amount: Money;
}

export interface ProviderPageContext {
  payment: BrowserPaymentRow;
  /** The merchant as the payer knows it (its name, or its id). */
  merchantName: string;
  /** The gateway's address the provider sends the payer back to (/bpui/<provider>/in/BP-...). */
  returnUrl: string;
  /** The path a simulator page's approve or cancel button posts to. */
  decisionPath(decision: PayerDecision): string;
}

export interface PayerReturn {
  outcome: PayerOutcome;
  /** `sourceOfFunds.provided.<provider>`: the payer's account as the provider reports it, masked. */
  payer?: JsonObject;
}

export interface ProviderResult {
  approved: boolean;
  /** `response.gatewayCode` */
  gatewayCode: 'APPROVED' | 'DECLINED';
  /** The provider's own code, for `response.acquirerCode`. */
  providerCode: string;
  /** The provider's reference of this operation (a refund's own id). */
  reference?: string;
  /**
   * An execution refused because the payment was already executed for another amount (by an
   * earlier attempt whose record never landed): the amount the provider holds.
   */
  executedFor?: Money;
  /**
   * A refund refused because its key was first used for another amount: that amount. Nothing
   * moved for this request; the key's first refund, made or declined, stands.
   */
  refundKeyUsedFor?: Money;
  /** The same for a capture: the amount its key was first used for. */
  captureKeyUsedFor?: Money;
}
