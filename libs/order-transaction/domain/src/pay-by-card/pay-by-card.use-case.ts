import { Inject, Injectable } from '@nestjs/common';
import { AcquirerRegistry } from '@gateway/acquirer';
import {
  cardAcquirerIdOf,
  CardPaymentRequest,
  OperationReply,
  RecordMode,
  RecordOperationMessage,
  TransactionResult,
  unmaskRequested,
  requestHashBasis,
} from '@gateway/contracts';
import { RequestHasher } from '@gateway/platform';
import { carriesStoredAgreementText } from '../agreements/agreement-terms';
import { Agreements } from '../agreements/agreements';
import { BeginOperation } from '../begin-operation/begin-operation.use-case';
import { amountAsked } from '../ledger-protocol/ledger-checks';
import { CardOutcome } from '../card-operation/card-outcome';
import { OUTCOME_RESERVED } from '../card-operation/operation-outcome';
import { CardOperationCommand, RunReservedOperation } from '../card-operation/reserved-operation';
import { withCardNumber } from '../ledger-response/unmasked-card';
import { Clock, CLOCK } from '../verification/clock';
import { CardPaymentPlan, planCardPayment } from './card-payment-plan';
import { cardPaymentOrderDetails, cardPaymentResponseBody, taxOfTransaction } from './card-payment-response';
import { CardPaymentSideEffects } from './card-payment-side-effects';

export type CardPaymentCommand = CardOperationCommand<CardPaymentRequest>;

/**
 * `apiOperation` AUTHORIZE (an AUTHORIZATION: funds reserved, a CAPTURE moves them) and PAY (a
 * PAYMENT: authorised and captured at once), with the card given in the request, behind a
 * token, or in the named session. Reserve, call, complete like a refund
 * (RunReservedOperation). A decline is a 201 with result FAILURE; the first funds operation of
 * an order failing leaves it FAILED with totals 0 (ARCHITECTURE 4.10). A partial approval
 * (order.acceptPartialAmount) is recorded at the approved amount. A named agreement is read
 * before the call, filled and checked as VERIFY's, and established by the first success
 * (docs/decisions/agreements.md).
 */
@Injectable()
export class PayByCard {
  constructor(
    private readonly begin: BeginOperation,
    private readonly reserved: RunReservedOperation,
    private readonly acquirers: AcquirerRegistry,
    private readonly sideEffects: CardPaymentSideEffects,
    private readonly requestHasher: RequestHasher,
    private readonly agreements: Agreements,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: CardPaymentCommand): Promise<OperationReply> {
    const { envelope, orderId, transactionId, request } = command;
    const apiOperation = request.apiOperation;
    const requestHash = this.requestHasher.hash(requestHashBasis(command));
    // The amount asked for, read only against a payment recorded from the acquirer's records: a retry of it is answered from it.
    const asked = () => ({ amount: amountAsked(request.order.amount, request.order.currency) });
    const { reply: begun, seen } = await this.begin.read({ envelope, orderId, transactionId, apiOperation, requestHash }, undefined, asked);
    if (begun.outcome === 'REPLAY') {
      return { body: begun.body };
    }
    const unmask = unmaskRequested(request, envelope.merchant, envelope.authMethod);
    const now = this.clock();
    // One indexed read when the request names an agreement, none otherwise.
    const established = await this.agreements.established(envelope, request.agreement);
    const planned = planCardPayment(request, begun.order, { now, session: command.session, established });
    // A live merchant without an acquirer is refused before anything is recorded.
    const connector = planned.route.kind === 'ACQUIRER' ? this.acquirers.forMerchant(envelope.merchant) : undefined;
    // Named in the reservation's body: the connector's, or the one the vault's call is routed to
    // (its registry routes the merchant by the same cardAcquirerIdOf).
    const plan: CardPaymentPlan = { ...planned, acquirerId: connector?.acquirerId ?? cardAcquirerIdOf(envelope.merchant) };
    const message = (outcome: CardOutcome, mode: RecordMode) => recordMessage(command, plan, requestHash, outcome, mode);
    const { body, replayed } = await this.reserved.execute({
      envelope,
      orderId,
      transactionId,
      apiOperation,
      requestHash,
      reservation: { ...message(OUTCOME_RESERVED, 'CREATE'), ...(seen === null ? { newOrder: true } : {}) },
      seen,
      deadline: command.deadline,
      perform: () => this.sideEffects.authorize(command, plan, connector),
      asked: { amount: plan.amount, partialApproval: plan.acceptPartialAmount },
      completion: (outcome) => message(outcome, 'UPDATE'),
      unavailable: () => this.sideEffects.unavailable(),
    });
    // The body is the outcome as recorded: a reservation replayed for a concurrent copy of the
    // request is PENDING, and establishes nothing.
    await this.agreements.establishAfter({
      envelope,
      orderId,
      transactionId,
      apiOperation,
      currency: plan.amount.currency,
      agreement: plan.agreement,
      established,
      result: body.result as TransactionResult,
      at: now,
    });
    // A replay (the same request reserved first: a copy racing past begin) is answered as stored, as begin's replays are.
    const number = plan.explicit.number;
    return { body: unmask && !replayed && number !== undefined ? withCardNumber(body, number) : body };
  }
}

function recordMessage(
  command: CardPaymentCommand,
  plan: CardPaymentPlan,
  requestHash: string,
  outcome: CardOutcome,
  mode: RecordMode,
): RecordOperationMessage {
  const { request } = command;
  // A partial approval: the transaction and the order hold what the issuer approved.
  const amount = outcome.result === 'SUCCESS' && outcome.approvedAmount ? outcome.approvedAmount : plan.amount;
  const taxAmount = taxOfTransaction(plan, outcome);
  return {
    envelope: command.envelope,
    orderId: command.orderId,
    transactionId: command.transactionId,
    apiOperation: plan.apiOperation,
    requestHash,
    mode,
    ...(carriesStoredAgreementText(request.agreement, plan.agreement) ? { storedAgreementText: true } : {}),
    order: {
      currency: amount.currency,
      amount: amount.toFixed(),
      details: cardPaymentOrderDetails(request, plan),
      ...(request.order.notificationUrl !== undefined ? { notificationUrl: request.order.notificationUrl } : {}),
    },
    transaction: {
      type: plan.type,
      amount: amount.toFixed(),
      currency: amount.currency,
      result: outcome.result,
      gatewayCode: outcome.gatewayCode,
      fundingType: 'CARD',
      ...(taxAmount ? { taxAmount: taxAmount.toFixed() } : {}),
    },
    response: cardPaymentResponseBody(request, plan, mode === 'UPDATE' ? outcome : undefined),
  };
}
