import { Inject, Injectable } from '@nestjs/common';
import type { BrowserPaymentRow } from '@gateway/browser-payment/data-access';
import {
  amountConsistency,
  BeginOperationReply,
  browserPaymentAmountsAnswerable,
  ConfirmBrowserPaymentRequest,
  GatewayError,
  JsonObject,
  RequestEnvelope,
  requestHashBasis,
} from '@gateway/contracts';
import type { FieldProblem } from '@gateway/api-fields';
import { Money } from '@gateway/money';
import { refuseIfPastDeadline, RequestHasher } from '@gateway/platform';
import { BrowserPaymentLedger } from '../ledger/browser-payment-ledger';
import { PAYMENT_STORE, PaymentStore } from '../payment/payment-store';
import { PaymentSteps } from '../payment/payment-steps';
import { asJson, requestOf, StoredRequest } from '../payment/stored-request';
import type { ProviderAdapter } from '../providers/provider-adapter';
import { ProviderAdapters } from '../providers/provider-adapters';

export interface ConfirmBrowserPaymentCommand {
  envelope: RequestEnvelope;
  orderId: string;
  transactionId: string;
  request: ConfirmBrowserPaymentRequest;
  body: JsonObject;
  /** The body as the merchant sent it, when a session filled `body`: the request hash is computed over it (requestHashBasis). */
  asSent?: JsonObject;
  /** When the edge stops waiting (OrderOperationMessage.deadline); none from an older edge. */
  deadline?: number;
}

const API_OPERATION = 'CONFIRM_BROWSER_PAYMENT';

/**
 * CONFIRM_BROWSER_PAYMENT (browser payment rule 3): executes a CONFIRM_AT_MERCHANT payment the
 * payer approved and came back from, under the initiate's transaction id. The confirm may
 * change the amount, the items, the tax and shipping amounts and the order's descriptive
 * fields (the amount consistency rules hold on the result), never the currency, and the amount
 * no higher than the provider allows above what the payer approved. The same
 * confirm again replays its response; another one is refused by the ledger.
 */
@Injectable()
export class ConfirmBrowserPayment {
  constructor(
    @Inject(PAYMENT_STORE) private readonly store: PaymentStore,
    private readonly providers: ProviderAdapters,
    private readonly ledger: BrowserPaymentLedger,
    private readonly steps: PaymentSteps,
    private readonly requestHasher: RequestHasher,
  ) {}

  async execute(command: ConfirmBrowserPaymentCommand): Promise<JsonObject> {
    const requestHash = this.requestHasher.hash(requestHashBasis(command));
    const begun = await this.begin(command, requestHash);
    if (begun.outcome === 'REPLAY') {
      await this.caughtUp(command, begun.body);
      return begun.body;
    }
    const payment = await this.store.findByTransaction(command.envelope.merchant.id, command.orderId, command.transactionId);
    if (!payment) {
      throw GatewayError.invalidField(
        'transactionid',
        'INVALID',
        `Value '${command.transactionId}' is invalid. The order has no browser payment with this transaction id: a confirm uses the transaction id of its initiate.`,
      );
    }
    assertConfirmable(payment, command.request);
    const confirmed = confirmedRequest(requestOf(payment), command.request, payment.currency);
    const amount = Money.of(confirmed.order.amount, payment.currency);
    const adapter = this.providers.forPayment(payment);
    assertWithinApproval(payment, confirmed.order.amount, amount, adapter);
    // Nothing has happened yet (begin and the payment were only read); the execution's claim and
    // the provider's execution come next, and run to their record (docs/decisions/operation-deadline.md).
    refuseIfPastDeadline(command.deadline, this.steps.now().getTime());
    const { body } = await this.steps.execute(
      payment,
      amount,
      adapter,
      { envelope: command.envelope, apiOperation: API_OPERATION, requestHash, orderChanged: true },
      { request: asJson(confirmed) },
    );
    return body;
  }

  private begin(command: ConfirmBrowserPaymentCommand, requestHash: string): Promise<BeginOperationReply> {
    const { envelope, orderId, transactionId } = command;
    return this.ledger
      .begin({ envelope, orderId, transactionId, apiOperation: API_OPERATION, requestHash, addressesExistingTransaction: true })
      .catch(async (err: unknown) => {
        if (err instanceof GatewayError && err.httpStatus === 400) {
          // Refused, perhaps because another confirm is recorded: one whose commit here may have failed.
          await this.caughtUp(command);
        }
        throw err;
      });
  }

  /**
   * A confirm the ledger recorded whose step here was never committed (the database lost between
   * the two) leaves the payment short of it: a replay or a refusal of the next confirm is where
   * that shows, so the payment catches up with the ledger's record there.
   */
  private async caughtUp(command: ConfirmBrowserPaymentCommand, recorded?: JsonObject): Promise<void> {
    const payment = await this.store.findByTransaction(command.envelope.merchant.id, command.orderId, command.transactionId).catch(() => null);
    if (payment) {
      await this.steps.catchUp(payment, command.envelope, recorded);
    }
  }
}

const CONFIRM = "Value 'CONFIRM_BROWSER_PAYMENT' is invalid.";

/** The rules about the payment itself, before any amount is looked at. */
function assertConfirmable(payment: BrowserPaymentRow, request: ConfirmBrowserPaymentRequest): void {
  if (payment.confirmation !== 'CONFIRM_AT_MERCHANT') {
    throw GatewayError.invalidField(
      'apiOperation',
      'INVALID',
      `${CONFIRM} Transaction '${payment.transactionId}' was initiated with paymentConfirmation ${payment.confirmation}: it completes at the provider, only CONFIRM_AT_MERCHANT payments are confirmed.`,
    );
  }
  const currency = request.order?.currency;
  if (currency !== undefined && currency !== payment.currency) {
    throw GatewayError.invalidField(
      'order.currency',
      'INVALID',
      `Value '${currency}' is invalid. The currency of a browser payment cannot change: this payment is in ${payment.currency}.`,
    );
  }
  if (payment.result === 'FAILURE' && payment.gatewayCode === 'TIMED_OUT') {
    // Ended by the gateway before the payer came back: no return will follow, so "confirm once
    // the payer is back" would have the merchant wait for ever. Or back, and not confirmed
    // within the confirm window: the payer's approval was released at the provider.
    const why =
      payment.interactionStatus === 'RETURNED_TO_MERCHANT'
        ? 'it was not confirmed within the confirm window after the payer came back, and the payer\'s approval at the provider was released'
        : 'the payer did not come back from the provider before the payment link expired';
    throw GatewayError.invalidField(
      'apiOperation',
      'INVALID',
      `${CONFIRM} The payment timed out (response.gatewayCode TIMED_OUT): ${why}. Initiate a new payment.`,
    );
  }
  if (payment.interactionStatus === 'INITIATED' || payment.interactionStatus === 'REDIRECTED_TO_PROVIDER') {
    throw GatewayError.invalidField(
      'apiOperation',
      'INVALID',
      `${CONFIRM} The payer has not returned from the provider yet (browserPayment.interaction.status is ${payment.interactionStatus}): confirm once the payer is back at browserPayment.returnUrl.`,
    );
  }
  if (payment.payerOutcome === 'CANCELLED') {
    throw GatewayError.invalidField('apiOperation', 'INVALID', `${CONFIRM} The payer cancelled the payment at the provider.`);
  }
  if (payment.interactionStatus === 'COMPLETED') {
    throw GatewayError.invalidField('apiOperation', 'INVALID', `${CONFIRM} The payment was already confirmed.`);
  }
}

/**
 * The spec lets a confirm change the amount; the payer approved one amount at the provider, and
 * a provider lets an execution go only so far above it (ProviderAdapter.highestConfirmable). A
 * confirm above that is refused here, before the provider is asked or anything is recorded, so
 * the payment stays confirmable at an allowed amount. A decrease is always allowed. The approved
 * amount is the payment's `amount`: the initiate's, which the provider's page showed the payer
 * and the provider holds the approval for; only the execution (completion) changes it, and a
 * completed payment is not confirmed again (assertConfirmable).
 */
function assertWithinApproval(payment: BrowserPaymentRow, sent: string, amount: Money, adapter: ProviderAdapter): void {
  const approved = Money.of(payment.amount, payment.currency);
  const highest = adapter.highestConfirmable(approved);
  if (amount.greaterThan(highest)) {
    const currency = payment.currency;
    throw GatewayError.invalidField(
      'order.amount',
      'INVALID',
      `Value '${sent}' is invalid. The payer approved ${approved.toFixed()} ${currency} at the provider, which allows a confirm of at most ${highest.toFixed()} ${currency}: confirm ${highest.toFixed()} or less, or initiate a new payment for the higher amount.`,
    );
  }
}

/**
 * The payment's request as the confirm leaves it: every order field the confirm gives replaces
 * the initiate's (a confirm's item list replaces the whole list), the rest stays. The amounts
 * of the result must have the currency's minor units and add up.
 */
function confirmedRequest(initiated: StoredRequest, request: ConfirmBrowserPaymentRequest, currency: string): StoredRequest {
  const { currency: _unchanged, ...changes } = plain(request.order ?? {}) as StoredRequest['order'];
  const confirmed: StoredRequest = {
    ...initiated,
    order: { ...initiated.order, ...changes, currency },
    ...(request.transaction ? { transaction: { ...initiated.transaction, ...plain(request.transaction) } } : {}),
    ...(request.customer ? { customer: { ...initiated.customer, ...plain(request.customer) } } : {}),
    ...(request.partnerSolutionId ? { partnerSolutionId: request.partnerSolutionId } : {}),
  };
  const asRequest = confirmed as unknown as ConfirmBrowserPaymentRequest;
  const problem = browserPaymentAmountsAnswerable(asRequest) ?? amountConsistency(asRequest);
  if (problem) {
    throw fromProblem(problem, changes);
  }
  return confirmed;
}

function fromProblem(problem: FieldProblem, changes: object): GatewayError {
  const name = problem.field?.replace(/^order\./, '').replace(/\[.*$/, '');
  const keptFromInitiate = name !== undefined && !(name in changes);
  const explanation = keptFromInitiate
    ? `${problem.explanation} (${problem.field} keeps its initiated value unless the confirm gives it.)`
    : problem.explanation;
  return problem.field
    ? GatewayError.invalidField(problem.field, problem.validationType, explanation)
    : GatewayError.invalidRequest(explanation);
}

function plain<T extends object>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
