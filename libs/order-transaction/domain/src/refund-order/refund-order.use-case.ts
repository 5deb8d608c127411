import { Inject, Injectable } from '@nestjs/common';
import { AcquirerConnector, AcquirerRegistry, AcquirerTransactionReference } from '@gateway/acquirer';
import {
  JsonObject,
  OperationSession,
  OperationReply,
  RecordMode,
  RecordOperationMessage,
  RefundRequest,
  RequestEnvelope,
  unmaskRequested,
} from '@gateway/contracts';
import { SeenOrder } from '@gateway/order-transaction/data-access';
import { APP_LOGGER, AppLogger, NotDeliveredError, RequestHasher } from '@gateway/platform';
import { BeginOperation } from '../begin-operation/begin-operation.use-case';
import { acquirerReferenceOf, storedAcquirerId } from '../card-operation/acquirer-reference';
import { hadNoEffect, writeAfterSideEffect } from '../card-operation/reservation-writes';
import { objectOrEmpty } from '../ledger-response/order-snapshot';
import { RecordedOperation, RecordOperation } from '../record-operation/record-operation.use-case';
import { ReleaseReservation } from '../release-reservation/release-reservation.use-case';
import { OUTCOME_UNKNOWN, RefundOutcome } from './refund-outcome';
import { FUNDS_TRANSFERS, planRefund, RefundPlan } from './refund-plan';
import { refundOrderDetails, refundResponseBody } from './refund-response';
import { RefundSideEffects } from './refund-side-effects';

export interface RefundCommand {
  envelope: RequestEnvelope;
  orderId: string;
  transactionId: string;
  /** The validated request. */
  request: RefundRequest;
  /** The body as the merchant sent it: its canonical hash identifies the request for replays. */
  body: JsonObject;
  /** The payment session the request named, with its card sealed by the vault (if it has one). */
  session?: OperationSession;
}

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
/** The reservation's result and code until the side effect answers (spec: PENDING). */
const RESERVED: RefundOutcome = { result: 'PENDING', gatewayCode: 'PENDING' };

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
    private readonly release: ReleaseReservation,
    private readonly acquirers: AcquirerRegistry,
    private readonly sideEffects: RefundSideEffects,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    private readonly requestHasher: RequestHasher,
  ) {}

  async execute(command: RefundCommand): Promise<OperationReply> {
    const { envelope, orderId, transactionId, request } = command;
    const requestHash = this.requestHasher.hash(command.body);
    const targets = { types: FUNDS_TRANSFERS, transactionId: request.transaction.targetTransactionId };
    const { reply: begun, seen, targetResponses } = await this.begin.read(
      { envelope, orderId, transactionId, apiOperation: API_OPERATION, requestHash },
      targets,
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
      const token = plan.linked ? undefined : request.sourceOfFunds?.token;
      if (token !== undefined) {
        await this.sideEffects.assertTokenHoldsCard(envelope, token);
      }
      // No money moves until someone approves: recorded in one step, holding its amount.
      return { body: (await this.record.execute(this.recordMessage(context, RESERVED, 'CREATE'), 'RECORD', seen)).body };
    }
    // Everything that can refuse the refund without a side effect is checked before reserving.
    const connector = plan.route.kind === 'ACQUIRER' ? this.connectorFor(plan, targetBody, envelope) : undefined;
    const original = plan.linked && plan.route.kind === 'ACQUIRER' ? acquirerReferenceOf(targetBody, plan.target!.id, 'refunded') : undefined;

    const reserved = await this.record.execute(this.recordMessage(context, RESERVED, 'CREATE'), 'RESERVE', seen);
    if (reserved.replayed) {
      // The same request reserved first (it raced this one without the order lock).
      return { body: reserved.body };
    }
    const outcome = await this.perform(context, connector, original);
    const completed = await this.complete(context, outcome, reserved.written);
    return { body: unmask ? withFullCardNumber(completed.body, plan) : completed.body };
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

  /**
   * The side effect. Refused before anything happened (a 4xx from the vault, nobody serving the
   * subject): the reservation is released and the error answered. No outcome at all (a timeout,
   * a fault): UNKNOWN, since the money may have moved.
   */
  private async perform(
    context: RefundContext,
    connector: AcquirerConnector | undefined,
    original: AcquirerTransactionReference | undefined,
  ): Promise<RefundOutcome> {
    const { command, plan } = context;
    try {
      return await this.sideEffects.refund({ command, plan, connector, original });
    } catch (err) {
      if (hadNoEffect(err)) {
        const release = {
          merchantId: command.envelope.merchant.id,
          orderId: command.orderId,
          transactionId: command.transactionId,
          apiOperation: API_OPERATION,
          requestHash: context.requestHash,
          fencingToken: command.envelope.fencingToken ?? '0',
        };
        await writeAfterSideEffect(
          () => this.release.execute(release),
          (releaseErr) =>
            this.logger.error(
              { err: releaseErr, orderId: command.orderId, transactionId: command.transactionId, route: plan.route.kind },
              'refund refused before any money moved, but its reservation could not be released: it stays PENDING holding its amount; release it',
            ),
        );
        throw err instanceof NotDeliveredError ? this.sideEffects.unavailable(plan.route) : err;
      }
      this.logger.warn(
        { err, orderId: command.orderId, transactionId: command.transactionId, route: plan.route.kind },
        'refund outcome unknown: recorded as UNKNOWN, amount kept reserved',
      );
      return OUTCOME_UNKNOWN;
    }
  }

  /** Money has moved (or may have): the ledger must record it, so a failed write is retried. */
  /** `reserved`: the order as the reservation wrote it (written again only if still that version). */
  private async complete(context: RefundContext, outcome: RefundOutcome, reserved: SeenOrder | undefined): Promise<RecordedOperation> {
    const message = this.recordMessage(context, outcome, 'UPDATE');
    const { orderId, transactionId } = context.command;
    return writeAfterSideEffect(
      () => this.record.execute(message, 'COMPLETE', reserved),
      (err) =>
        this.logger.error(
          { err, orderId, transactionId, result: outcome.result, gatewayCode: outcome.gatewayCode },
          'refund performed but not recorded: reconcile this transaction, it stays PENDING in the ledger',
        ),
    );
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

/**
 * UNMASK (permission, certificate authentication, asked for): the full number of a card the
 * request itself gave is added to this reply only; the ledger stored it masked, and replays
 * and retrievals stay masked.
 */
function withFullCardNumber(body: JsonObject, plan: RefundPlan): JsonObject {
  const number = plan.card?.number;
  const sourceOfFunds = objectOrEmpty(body.sourceOfFunds);
  const provided = objectOrEmpty(sourceOfFunds.provided);
  const card = objectOrEmpty(provided.card);
  if (number === undefined || plan.linked || card.number === undefined) {
    return body;
  }
  return { ...body, sourceOfFunds: { ...sourceOfFunds, provided: { ...provided, card: { ...card, number } } } };
}
