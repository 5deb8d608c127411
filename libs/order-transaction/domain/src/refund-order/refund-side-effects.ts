import { Inject, Injectable } from '@nestjs/common';
import { AcquirerConnector, AcquirerTransactionReference, REFUND_WIRE } from '@gateway/acquirer';
import {
  AcquirerCallMessage,
  AcquirerCallReply,
  GatewayError,
  ProviderRefundMessage,
  ProviderRefundReply,
  RequestEnvelope,
  SUBJECTS,
} from '@gateway/contracts';
import { MessageBus, NotDeliveredError } from '@gateway/platform';
import { TimedOutReversal } from '../card-operation/timed-out-reversal';
import { STORED_CARD_ACQUIRER, StoredCardAcquirer } from '../verification/card-custody/stored-card-acquirer';
import type { RefundCommand } from './refund-order.use-case';
import { outcomeOfAcquirer, outcomeOfProvider, RefundOutcome } from './refund-outcome';
import type { RefundPlan, RefundRoute } from './refund-plan';

/**
 * How long a money-moving call through another service waits for its answer
 * (OrderTransactionConfig.REFUND_CALL_TIMEOUT_MS): a refund's through the vault or
 * browser-payment, an AUTHORIZE's or PAY's through the vault (CardPaymentSideEffects), a capture's
 * or void's at a browser payment provider (ProviderFollowOn).
 */
export const REFUND_CALL_TIMEOUT_MS = Symbol('REFUND_CALL_TIMEOUT_MS');

export interface RefundCall {
  command: RefundCommand;
  plan: RefundPlan;
  /** The acquirer, for the ACQUIRER route: a linked refund's target's, a standalone one's the merchant's. */
  connector?: AcquirerConnector;
  /** The refunded card transaction as the acquirer knows it (linked card refunds). */
  original?: AcquirerTransactionReference;
}

/**
 * The money movement of a refund, by route: the acquirer connector (linked card refunds, and
 * standalone refunds to a card the request gives), the token vault (a card behind a token or
 * a payment session:
 * only the vault opens it, card-custody.messages.ts), or browser-payment (an order a provider
 * funded, provider-refund.messages.ts). Throws what the callee threw; RefundOrder decides
 * whether anything can have happened. A card refund the acquirer answered TIMED_OUT is reversed
 * before it is recorded (TimedOutReversal): the issuer may still credit it.
 */
@Injectable()
export class RefundSideEffects {
  constructor(
    private readonly bus: MessageBus,
    @Inject(REFUND_CALL_TIMEOUT_MS) private readonly timeoutMs: number,
    private readonly reversal: TimedOutReversal,
    @Inject(STORED_CARD_ACQUIRER) private readonly storedCards: StoredCardAcquirer,
  ) {}

  async refund(call: RefundCall): Promise<RefundOutcome> {
    const outcome = await this.call(call);
    if (call.plan.route.kind === 'PROVIDER') {
      return outcome; // a browser payment provider's answer, not an acquirer's
    }
    const { envelope, orderId, transactionId } = call.command;
    return this.reversal.afterCall(outcome, { merchant: envelope.merchant, orderId, transactionId, type: 'REFUND' });
  }

  private async call(call: RefundCall): Promise<RefundOutcome> {
    const { command, plan } = call;
    const context = {
      merchantId: command.envelope.merchant.id,
      orderId: command.orderId,
      transactionId: command.transactionId,
      amount: plan.amount,
    };
    switch (plan.route.kind) {
      case 'ACQUIRER': {
        const card = plan.route.card;
        const result = await call.connector!.refund({
          ...context,
          ...(call.original ? { original: call.original } : {}),
          ...(card ? { card } : {}),
        });
        return outcomeOfAcquirer(result);
      }
      case 'VAULT': {
        const message: AcquirerCallMessage = {
          envelope: command.envelope,
          operation: 'REFUND',
          source: plan.route.source,
          ...(plan.card ? { explicit: explicitFields(plan) } : {}),
          request: REFUND_WIRE.encodeRequest({
            ...context,
            ...(plan.card?.sequenceNumber !== undefined ? { card: { sequenceNumber: plan.card.sequenceNumber } } : {}),
          }),
        };
        const reply = await this.bus.request<AcquirerCallReply>(SUBJECTS.tokenVault.acquirerCall, message, { timeoutMs: this.timeoutMs });
        return { ...outcomeOfAcquirer(REFUND_WIRE.decodeResult(reply.result)), card: reply.card };
      }
      case 'PROVIDER': {
        const message: ProviderRefundMessage = {
          envelope: command.envelope,
          orderId: command.orderId,
          transactionId: command.transactionId,
          targetTransactionId: plan.target!.id,
          amount: plan.amount.toFixed(),
          currency: plan.amount.currency,
        };
        const reply = await this.bus.request<ProviderRefundReply>(SUBJECTS.browserPayment.refund, message, { timeoutMs: this.timeoutMs });
        return outcomeOfProvider(reply);
      }
      case 'APPROVAL':
        throw new Error('a refund waiting for approval has no side effect');
    }
  }

  /**
   * A refund waiting for approval to a token sends nothing, but it must be one that could be paid
   * once approved: a token the merchant's repository holds, holding a card (read as VERIFY reads
   * a token's BIN). Before anything is recorded; refused as the vault refuses a refund sent at once.
   */
  async assertTokenHoldsCard(envelope: RequestEnvelope, token: string): Promise<void> {
    try {
      await this.storedCards.binOf(envelope, token);
    } catch (err) {
      throw err instanceof NotDeliveredError ? this.unavailable({ kind: 'VAULT', source: { token } }) : err;
    }
  }

  /** The clear answer when the service that would move the money is not there: nothing moved. */
  unavailable(route: RefundRoute): GatewayError {
    const who =
      route.kind === 'PROVIDER'
        ? 'Refunds of orders paid through a browser payment provider are not available at the moment (browser-payment did not answer).'
        : 'Refunds to a stored card are not available at the moment (the token vault did not answer).';
    return new GatewayError('SERVER_BUSY', {
      explanation: `${who} Nothing was refunded; the request may be retried with the same transaction id.`,
      retryAfterSeconds: 5,
    });
  }
}

/** The request's own card values, over the session's and the token's (spec session rules: explicit > session > token). */
function explicitFields(plan: RefundPlan) {
  const { number, expiry, securityCode, nameOnCard } = plan.card!;
  return {
    ...(number !== undefined ? { number } : {}),
    ...(expiry ? { expiry } : {}),
    ...(securityCode !== undefined ? { securityCode } : {}),
    ...(nameOnCard !== undefined ? { nameOnCard } : {}),
  };
}
