import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { BrowserPaymentRow, Confirmation, PaymentOperation, ProviderName } from '@gateway/browser-payment/data-access';
import {
  GatewayError,
  InitiateBrowserPaymentRequest,
  isStandaloneRefundOrder,
  JsonObject,
  LedgerOrderView,
  PROVIDER_OF_SOURCE,
  RequestEnvelope,
  requestHashBasis,
} from '@gateway/contracts';
import { Money } from '@gateway/money';
import { refuseIfPastDeadline, RequestHasher } from '@gateway/platform';
import { BROWSER_PAYMENT_OPTIONS, BrowserPaymentOptions, CLOCK, Clock } from '../browser-payment.options';
import { BrowserPaymentLedger, INITIATE_OPERATION } from '../ledger/browser-payment-ledger';
import { PayerJourneys } from '../payer-journey/payer-journeys';
import { paymentResponse, providerAOptions } from '../payment/payment-response';
import { PAYMENT_STORE, PaymentStore } from '../payment/payment-store';
import { asJson, StoredRequest, storedRequestOf } from '../payment/stored-request';
import { ProviderAdapters } from '../providers/provider-adapters';
import { newRedirectToken, redirectTokenHash } from '../redirect-token/redirect-token';

export interface InitiateBrowserPaymentCommand {
  envelope: RequestEnvelope;
  orderId: string;
  transactionId: string;
  request: InitiateBrowserPaymentRequest;
  /** The body as received, filled from a session the request named. */
  body: JsonObject;
  /** The body as the merchant sent it, when a session filled `body`: the request hash is computed over it (requestHashBasis). */
  asSent?: JsonObject;
  /** When the edge stops waiting (OrderOperationMessage.deadline); none from an older edge. */
  deadline?: number;
}

/**
 * INITIATE_BROWSER_PAYMENT: opens the payment at the provider, issues the payer's redirect
 * token and records a PENDING transaction (PAYMENT, or AUTHORIZATION for a provider_a
 * AUTHORIZE) with gatewayCode SUBMITTED: order INITIATED, interaction INITIATED. The answer
 * carries browserPayment.redirectUrl, `{PUBLIC_BASE_URL}/bpui/<provider>/out/BP-<32 hex>`.
 */
@Injectable()
export class InitiateBrowserPayment {
  constructor(
    @Inject(PAYMENT_STORE) private readonly store: PaymentStore,
    private readonly providers: ProviderAdapters,
    private readonly ledger: BrowserPaymentLedger,
    private readonly journeys: PayerJourneys,
    @Inject(BROWSER_PAYMENT_OPTIONS) private readonly options: BrowserPaymentOptions,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly requestHasher: RequestHasher,
  ) {}

  async execute(command: InitiateBrowserPaymentCommand): Promise<JsonObject> {
    const { envelope, request } = command;
    const provider = PROVIDER_OF_SOURCE[request.sourceOfFunds.type];
    assertProviderFields(request, provider);
    const adapter = this.providers.forMerchant(envelope.merchant, provider);
    const requestHash = this.requestHasher.hash(requestHashBasis(command));
    const begun = await this.ledger.begin({
      envelope,
      orderId: command.orderId,
      transactionId: command.transactionId,
      apiOperation: INITIATE_OPERATION,
      requestHash,
    });
    if (begun.outcome === 'REPLAY') {
      return begun.body;
    }
    const amount = Money.of(request.order.amount, request.order.currency);
    assertOrderTakesPayment(begun.order, amount.currency);

    const stored = storedRequestOf(request);
    const { operation, confirmation } = terms(stored, provider);
    // Nothing has happened yet (begin only read); opening the payment at the provider is the first
    // change, and from it on the initiate runs to its record (docs/decisions/operation-deadline.md).
    refuseIfPastDeadline(command.deadline, this.clock.now().getTime());
    const providerReference = await adapter.createPayment({ operation, amount });
    const token = newRedirectToken();
    const now = this.clock.now();
    const payment: BrowserPaymentRow = {
      id: randomUUID(),
      merchantId: envelope.merchant.id,
      orderId: command.orderId,
      transactionId: command.transactionId,
      provider,
      merchantMode: envelope.merchant.mode,
      operation,
      confirmation,
      currency: amount.currency,
      amount: amount.toFixed(),
      interactionStatus: 'INITIATED',
      result: 'PENDING',
      gatewayCode: 'SUBMITTED',
      payerOutcome: null,
      tokenHash: redirectTokenHash(token),
      tokenExpiresAt: new Date(now.getTime() + this.options.tokenTtlMs),
      providerReference,
      returnUrl: request.browserPayment.returnUrl,
      request: asJson(stored),
      providerDetails: null,
      timeInitiated: now,
      timeRedirected: null,
      timeReturned: null,
      timeCompleted: null,
      updatedAt: now,
    };
    if (!(await this.store.saveInitiated(payment))) {
      // The ledger has no initiate under this id, yet a journey started under it: never reuse it.
      throw GatewayError.invalidField(
        'transactionid',
        'INVALID',
        `Value '${command.transactionId}' is invalid. The transaction id is already used on this order.`,
      );
    }
    return this.ledger.record({
      envelope,
      payment,
      apiOperation: INITIATE_OPERATION,
      requestHash,
      mode: 'CREATE',
      response: paymentResponse(payment, adapter.acquirerId, this.journeys.redirectUrl(provider, token)),
      orderChanged: true,
      newOrder: begun.order === null,
    });
  }
}

/** provider_a's options decide the terms; the bank transfers (provider_b, provider_c) always pay at once. */
function terms(request: StoredRequest, provider: ProviderName): { operation: PaymentOperation; confirmation: Confirmation } {
  if (provider !== 'provider_a') {
    return { operation: 'PAY', confirmation: 'CONFIRM_AT_PROVIDER' };
  }
  const options = providerAOptions(request);
  return { operation: options.operation, confirmation: options.paymentConfirmation };
}

/** A provider's own fields belong to that provider's payments only. */
function assertProviderFields(request: InitiateBrowserPaymentRequest, provider: ProviderName): void {
  const unsupported = (field: string) =>
    GatewayError.invalidField(
      field,
      'UNSUPPORTED',
      `Parameter ${field} is not supported when sourceOfFunds.type is ${request.sourceOfFunds.type}.`,
    );
  if (request.browserPayment.provider_a && provider !== 'provider_a') {
    throw unsupported('browserPayment.provider_a');
  }
  if (request.sourceOfFunds.provided?.provider_b && provider !== 'provider_b') {
    throw unsupported('sourceOfFunds.provided.provider_b');
  }
}

/**
 * Checked before anything is opened at the provider (the ledger checks both again when
 * recording): an order a standalone refund opened takes no payment; an order's currency is its own.
 */
function assertOrderTakesPayment(order: LedgerOrderView | null, currency: string): void {
  if (order && isStandaloneRefundOrder(order.transactions)) {
    throw GatewayError.invalidRequest(`Order '${order.id}' was opened by a standalone refund: it takes no payment. A payment needs an order id of its own.`);
  }
  if (order && order.currency !== currency) {
    throw GatewayError.invalidField('order.currency', 'INVALID', `Value '${currency}' is invalid. The order's currency is ${order.currency}.`);
  }
}
