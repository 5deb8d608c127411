import { Injectable } from '@nestjs/common';
import { AcquirerConnector, AcquirerRegistry } from '@gateway/acquirer';
import { JsonObject, OperationReply, RecordMode, RecordOperationMessage, RefundRequest, RequestEnvelope, requestHashBasis, unmaskRequested } from '@gateway/contracts';
import { SeenOrder } from '@gateway/order-transaction/data-access';
import { refuseIfPastDeadline, RequestHasher } from '@gateway/platform';
import { BeginOperation } from '../begin-operation/begin-operation.use-case';
import { acquirerReferenceOf, storedAcquirerId } from '../card-operation/acquirer-reference';
import { OUTCOME_RESERVED } from '../card-operation/operation-outcome';
import { amountRetry } from '../ledger-protocol/ledger-checks';
import { CardOperationCommand, RunReservedOperation } from '../card-operation/reserved-operation';
import { withCardNumber } from '../ledger-response/unmasked-card';
import { RecordOperation } from '../record-operation/record-operation.use-case';
import { RefundOutcome } from './refund-outcome';
import { FUNDS_TRANSFERS, planRefund, RefundPlan } from './refund-plan';
import { refundOrderDetails, refundResponseBody } from './refund-response';
import { RefundSideEffects } from './refund-side-effects';

export type RefundCommand = CardOperationCommand<RefundRequest>;

/** What every ledger step of one refund shares. */
interface RefundContext {
  command: RefundCommand;
  requestHash: string;
  plan: RefundPlan;
  targetBody: JsonObject | null;
  details: JsonObject;
  /** The order as begin read it; null (a standalone refund opening its own): the ledger's newOrder hint. */
  seen: SeenOrder | null;
}

const API_OPERATION = 'REFUND';

/**
 * `apiOperation: REFUND`: returns captured funds to the payer (spec, Refund rules;
 * docs/decisions/refund-rules.md). Runs on the ledger's own use cases in-process, as
 * reserve, call, complete (docs/decisions/refund-reservation.md): the amount is reserved on
 * the order as it stands (written only if no record changed it since begin's read) before any
 * money moves, so a refund the ledger would refuse never reaches the acquirer, and one that
 * reached it is always recorded.
 */
@Injectable()
export class RefundOrder {
  constructor(
    private readonly begin: BeginOperation,
    private readonly record: RecordOperation,
    private readonly reserved: RunReservedOperation,
    private readonly acquirers: AcquirerRegistry,
    private readonly sideEffects: RefundSideEffects,
    private readonly requestHasher: RequestHasher,
  ) {}

  async execute(command: RefundCommand): Promise<OperationReply> {
    const { envelope, orderId, transactionId, request } = command;
    const requestHash = this.requestHasher.hash(requestHashBasis(command));
    const targets = { types: FUNDS_TRANSFERS, transactionId: request.transaction.targetTransactionId };
    const { reply: begun, seen, targetResponses } = await this.begin.read(
      { envelope, orderId, transactionId, apiOperation: API_OPERATION, requestHash },
      targets,
      () => amountRetry(request.transaction),
    );
    if (begun.outcome === 'REPLAY') {
      return { body: begun.body };
    }
    const unmask = unmaskRequested(request, envelope.merchant, envelope.authMethod);
    const plan = planRefund(request, begun.order, envelope.merchant, command.session);
    const targetBody = plan.target ? (targetResponses.get(plan.target.id) ?? null) : null;
    const context: RefundContext = {
      command,
      requestHash,
      plan,
      targetBody,
      details: refundOrderDetails(request, plan),
      seen,
    };

    if (plan.route.kind === 'APPROVAL') {
      // Recorded in one step below: nothing happens before it but the vault's read of the token.
      refuseIfPastDeadline(command.deadline);
      const token = plan.linked ? undefined : request.sourceOfFunds?.token;
      if (token !== undefined) {
        await this.sideEffects.assertTokenHoldsCard(envelope, token);
      }
      // No money moves until someone approves: recorded in one step, holding its amount. The
      // record is the operation's only change, so its write refuses it too once it holds its
      // connection past the deadline.
      const approval = this.recordMessage(context, OUTCOME_RESERVED, 'CREATE');
      return { body: (await this.record.execute(approval, 'RECORD', seen, command.deadline)).body };
    }
    // Everything that can refuse the refund without a side effect is checked before reserving.
    const connector = plan.route.kind === 'ACQUIRER' ? this.connectorFor(plan, targetBody, envelope) : undefined;
    const original = plan.linked && plan.route.kind === 'ACQUIRER' ? acquirerReferenceOf(targetBody, plan.target!.id, 'refunded') : undefined;

    const refunded = await this.reserved.execute<RefundOutcome>({
      envelope,
      orderId,
      transactionId,
      apiOperation: API_OPERATION,
      requestHash,
      reservation: this.recordMessage(context, OUTCOME_RESERVED, 'CREATE'),
      seen,
      deadline: command.deadline,
      perform: () => this.sideEffects.refund({ command, plan, connector, original }),
      // A refund has no partial approval: the acquirer returns what was asked or declines.
      asked: { amount: plan.amount, partialApproval: false },
      completion: (outcome) => this.recordMessage(context, outcome, 'UPDATE'),
      unavailable: () => this.sideEffects.unavailable(plan.route),
      log: { name: 'refund', fields: { route: plan.route.kind } },
    });
    // A replay (the same request reserved first) is answered as stored, as begin's replays are;
    // a linked refund shows its target's card, never one the request gave.
    const number = plan.linked ? undefined : plan.card?.number;
    return { body: unmask && !refunded.replayed && number !== undefined ? withCardNumber(refunded.body, number) : refunded.body };
  }

  /**
   * A linked refund goes to the acquirer that processed its target (its stored
   * `transaction.acquirer.id`), whatever the merchant's mode is now: a test-era payment is
   * refunded at the test acquirer after a switch to LIVE. A standalone one opens an order: the
   * merchant's acquirer now.
   */
  private connectorFor(plan: RefundPlan, targetBody: JsonObject | null, envelope: RequestEnvelope): AcquirerConnector {
    return plan.linked ? this.acquirers.forRecordedAcquirer(storedAcquirerId(targetBody), envelope.merchant) : this.acquirers.forMerchant(envelope.merchant);
  }

  /** A CREATE before the side effect (nothing known of it yet), or the UPDATE with its outcome. */
  private recordMessage(context: RefundContext, outcome: RefundOutcome, mode: RecordMode): RecordOperationMessage {
    const { command, plan, requestHash, targetBody, details } = context;
    const request = command.request;
    return {
      envelope: command.envelope,
      orderId: command.orderId,
      transactionId: command.transactionId,
      apiOperation: API_OPERATION,
      requestHash,
      mode,
      ...(mode === 'CREATE' && context.seen === null ? { newOrder: true } : {}),
      order: {
        currency: plan.amount.currency,
        details,
        ...(request.order?.notificationUrl !== undefined ? { notificationUrl: request.order.notificationUrl } : {}),
      },
      transaction: {
        type: plan.type,
        amount: plan.amount.toFixed(),
        currency: plan.amount.currency,
        result: outcome.result,
        gatewayCode: outcome.gatewayCode,
        ...(plan.target ? { targetTransactionId: plan.target.id } : {}),
        // A standalone refund goes to a card (given, or behind a token); a linked one to whatever funded its target.
        ...(plan.linked ? (plan.target?.fundingType ? { fundingType: plan.target.fundingType } : {}) : { fundingType: 'CARD' }),
        ...(plan.taxAmount ? { taxAmount: plan.taxAmount.toFixed() } : {}),
      },
      response: refundResponseBody({ request, plan, targetBody, outcome: mode === 'UPDATE' ? outcome : undefined }),
    };
  }
}
