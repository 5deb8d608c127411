import { Inject, Injectable } from '@nestjs/common';
import { ACQUIRER_WIRE, AcquirerConnector, AuthorizeCardRequest } from '@gateway/acquirer';
import { AcquirerCallMessage, AcquirerCallReply, CardPaymentRequest, GatewayError, SUBJECTS } from '@gateway/contracts';
import { MessageBus } from '@gateway/platform';
import { CardOutcome, outcomeOfAuthorization } from '../card-operation/card-outcome';
import type { CardOperationCommand } from '../card-operation/reserved-operation';
import { TimedOutReversal } from '../card-operation/timed-out-reversal';
import { REFUND_CALL_TIMEOUT_MS } from '../refund-order/refund-side-effects';
import type { CardPaymentPlan } from './card-payment-plan';

/**
 * The acquirer call of an AUTHORIZE or PAY, by route: the merchant's connector with the card the
 * request gave, or the token vault, which alone opens a token's or a session's card
 * (token-vault.acquirer.call.v1) and answers the result with the card masked. An answer of
 * TIMED_OUT is reversed at the acquirer before it is recorded (TimedOutReversal).
 */
@Injectable()
export class CardPaymentSideEffects {
  constructor(
    private readonly bus: MessageBus,
    // The vault call waits as long as a refund's through the vault: the same acquirer behind it.
    @Inject(REFUND_CALL_TIMEOUT_MS) private readonly timeoutMs: number,
    private readonly reversal: TimedOutReversal,
  ) {}

  async authorize(command: CardOperationCommand<CardPaymentRequest>, plan: CardPaymentPlan, connector?: AcquirerConnector): Promise<CardOutcome> {
    const outcome = await this.call(command, plan, connector);
    const { envelope, orderId, transactionId } = command;
    return this.reversal.afterCall(outcome, { merchant: envelope.merchant, orderId, transactionId, type: plan.type });
  }

  private async call(command: CardOperationCommand<CardPaymentRequest>, plan: CardPaymentPlan, connector?: AcquirerConnector): Promise<CardOutcome> {
    const request: Omit<AuthorizeCardRequest, 'card'> = {
      merchantId: command.envelope.merchant.id,
      orderId: command.orderId,
      transactionId: command.transactionId,
      amount: plan.amount,
      acceptPartialAmount: plan.acceptPartialAmount,
      ...(plan.cardholder ? { cardholder: plan.cardholder } : {}),
      ...(plan.authentication ? { authentication: plan.authentication } : {}),
      ...(plan.agreement ? { agreement: plan.agreement } : {}),
    };
    const route = plan.route;
    if (route.kind === 'ACQUIRER') {
      const full = { ...request, card: route.card };
      return outcomeOfAuthorization(plan.type === 'PAYMENT' ? await connector!.pay(full) : await connector!.authorize(full));
    }
    const wire = ACQUIRER_WIRE[plan.apiOperation];
    const message: AcquirerCallMessage = {
      envelope: command.envelope,
      operation: plan.apiOperation,
      source: route.source,
      ...(Object.keys(plan.explicit).length > 0 ? { explicit: plan.explicit } : {}),
      request: wire.encodeRequest(request),
    };
    const reply = await this.bus.request<AcquirerCallReply>(SUBJECTS.tokenVault.acquirerCall, message, { timeoutMs: this.timeoutMs });
    return { ...outcomeOfAuthorization(wire.decodeResult(reply.result)), card: reply.card };
  }

  /** Nothing moved: the vault did not answer. */
  unavailable(): GatewayError {
    return new GatewayError('SERVER_BUSY', {
      explanation: 'Payments with a stored or session card are not available at the moment (the token vault did not answer). Nothing was charged; the request may be retried with the same transaction id.',
      retryAfterSeconds: 5,
    });
  }
}
