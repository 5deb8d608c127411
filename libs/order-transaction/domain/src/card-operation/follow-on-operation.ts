import { Injectable } from '@nestjs/common';
import {
  AcquirerConnector,
  AcquirerOperationContext,
  AcquirerRegistry,
  AcquirerTransactionReference,
  CaptureResult,
  VoidResult,
} from '@gateway/acquirer';
import {
  GatewayError,
  JsonObject,
  LedgerOrderView,
  LedgerTransactionView,
  OperationReply,
  RecordMode,
  RecordOperationMessage,
  TransactionType,
  requestHashBasis,
} from '@gateway/contracts';
import { Money } from '@gateway/money';
import { RequestHasher } from '@gateway/platform';
import { BeginOperation } from '../begin-operation/begin-operation.use-case';
import type { RetryAsks } from '../ledger-protocol/ledger-checks';
import { acquirerReferenceOf, storedAcquirerId } from './acquirer-reference';
import { CardOutcome, outcomeOfFollowOn } from './card-outcome';
import { FollowOnRequest, followOnOrderGroup, followOnResponseBody } from './follow-on-response';
import { OUTCOME_RESERVED } from './operation-outcome';
import type { FundsRoute } from './order-transactions';
import { ProviderFollowOn, ProviderFollowOnCall } from './provider-follow-on';
import { CardOperationCommand, ReservedOperation, RunReservedOperation } from './reserved-operation';

/** What a CAPTURE or VOID records: a transaction against an earlier one of the order. */
export interface FollowOnPlan {
  type: TransactionType;
  amount: Money;
  /** The earlier transaction captured or voided. */
  target: LedgerTransactionView;
  fundingType?: string;
  taxAmount?: Money | null;
  /** The acquirer, or (a browser payment's authorisation) browser-payment at the provider. */
  route: FundsRoute;
}

/** How one follow-on operation differs from the other: its plan, its acquirer call and its call at a provider. */
export interface FollowOnOperation<R extends FollowOnRequest, P extends FollowOnPlan = FollowOnPlan> {
  apiOperation: 'CAPTURE' | 'VOID';
  /** What the operation does to its target, for the error when the target has no acquirer reference ('captured'). */
  doing: string;
  /** The types of transaction it can act on (successful ones): begin reads their stored responses. */
  targetTypes: readonly TransactionType[];
  plan(request: R, order: LedgerOrderView | null, orderId: string): P;
  /** What the request asks for, by which its retry of a transaction recorded from the acquirer's records is recognised. */
  retry(request: R): RetryAsks;
  call(
    connector: AcquirerConnector,
    context: AcquirerOperationContext,
    target: AcquirerTransactionReference,
    plan: P,
  ): Promise<CaptureResult | VoidResult>;
  /** The same operation on a browser payment's authorisation: what browser-payment is asked. */
  atProvider(command: CardOperationCommand<R>, plan: P): ProviderFollowOnCall;
}

/** The side effect of one follow-on operation, by its route. */
type FollowOnSideEffect = Pick<ReservedOperation, 'perform' | 'unavailable'>;

/**
 * CAPTURE and VOID: an operation on an earlier transaction of the order, with no card (so never
 * through the vault). Planned on the order as begin saw it, reserved by the ledger on the order
 * as it stands when the reservation is written (where its limits hold whatever raced it), sent
 * to the acquirer that processed the target (its stored `transaction.acquirer.id`, whatever the
 * merchant's mode is now) by its acquirer reference, or for a browser payment's authorisation
 * to browser-payment, which makes it at the provider (ProviderFollowOn), then recorded
 * (RunReservedOperation).
 */
@Injectable()
export class RunFollowOnOperation {
  constructor(
    private readonly begin: BeginOperation,
    private readonly reserved: RunReservedOperation,
    private readonly acquirers: AcquirerRegistry,
    private readonly providers: ProviderFollowOn,
    private readonly requestHasher: RequestHasher,
  ) {}

  async execute<R extends FollowOnRequest, P extends FollowOnPlan>(
    operation: FollowOnOperation<R, P>,
    command: CardOperationCommand<R>,
  ): Promise<OperationReply> {
    const { envelope, orderId, transactionId, request } = command;
    const { apiOperation } = operation;
    const requestHash = this.requestHasher.hash(requestHashBasis(command));
    const targets = { types: operation.targetTypes, transactionId: request.transaction.targetTransactionId };
    const { reply: begun, seen, targetResponses } = await this.begin.read(
      { envelope, orderId, transactionId, apiOperation, requestHash },
      targets,
      () => operation.retry(request),
    );
    if (begun.outcome === 'REPLAY') {
      return { body: begun.body };
    }
    const plan = operation.plan(request, begun.order, orderId);
    const targetBody = targetResponses.get(plan.target.id) ?? null;
    // Decided before the reservation: a target the acquirer cannot be asked about is a 400 that records nothing.
    const sideEffect = plan.route === 'PROVIDER' ? this.atProvider(operation, command, plan) : this.atAcquirer(operation, command, plan, targetBody);
    const message = (outcome: CardOutcome, mode: RecordMode) =>
      recordMessage(command, apiOperation, plan, requestHash, targetBody, outcome, mode);
    const { body } = await this.reserved.execute({
      envelope,
      orderId,
      transactionId,
      apiOperation,
      requestHash,
      reservation: message(OUTCOME_RESERVED, 'CREATE'),
      seen,
      deadline: command.deadline,
      ...sideEffect,
      // A capture or void has no partial approval: it is made for what was asked or declined.
      asked: { amount: plan.amount, partialApproval: false },
      completion: (outcome) => message(outcome, 'UPDATE'),
    });
    return { body };
  }

  private atAcquirer<R extends FollowOnRequest, P extends FollowOnPlan>(
    operation: FollowOnOperation<R, P>,
    { envelope, orderId, transactionId }: CardOperationCommand<R>,
    plan: P,
    targetBody: JsonObject | null,
  ): FollowOnSideEffect {
    const target = acquirerReferenceOf(targetBody, plan.target.id, operation.doing);
    // The acquirer that processed the target, not the merchant's mode now: an order opened while
    // TEST is captured or voided at the test acquirer after a switch to LIVE.
    const connector = this.acquirers.forRecordedAcquirer(storedAcquirerId(targetBody), envelope.merchant);
    return {
      perform: async () => outcomeOfFollowOn(await operation.call(connector, { merchantId: envelope.merchant.id, orderId, transactionId }, target, plan)),
      unavailable: () => GatewayError.serverFailed(),
    };
  }

  private atProvider<R extends FollowOnRequest, P extends FollowOnPlan>(
    operation: FollowOnOperation<R, P>,
    command: CardOperationCommand<R>,
    plan: P,
  ): FollowOnSideEffect {
    const call = operation.atProvider(command, plan);
    return {
      perform: () => this.providers.call(call),
      unavailable: () => this.providers.unavailable(operation.apiOperation, operation.doing),
    };
  }
}

function recordMessage(
  command: CardOperationCommand<FollowOnRequest>,
  apiOperation: string,
  plan: FollowOnPlan,
  requestHash: string,
  targetBody: JsonObject | null,
  outcome: CardOutcome,
  mode: RecordMode,
): RecordOperationMessage {
  const { request } = command;
  const currency = plan.amount.currency;
  const details = followOnOrderGroup(request);
  return {
    envelope: command.envelope,
    orderId: command.orderId,
    transactionId: command.transactionId,
    apiOperation,
    requestHash,
    mode,
    order: { currency, ...(Object.keys(details).length > 0 ? { details } : {}) },
    transaction: {
      type: plan.type,
      amount: plan.amount.toFixed(),
      currency,
      result: outcome.result,
      gatewayCode: outcome.gatewayCode,
      targetTransactionId: plan.target.id,
      ...(plan.fundingType ? { fundingType: plan.fundingType } : {}),
      ...(plan.taxAmount ? { taxAmount: plan.taxAmount.toFixed() } : {}),
    },
    response: followOnResponseBody(request, currency, targetBody, mode === 'UPDATE' ? outcome : undefined, plan.taxAmount),
  };
}
