import { Inject, Injectable } from '@nestjs/common';
import { GatewayError, JsonObject, JsonValue, OperationSession, RecordOperationMessage, RequestEnvelope } from '@gateway/contracts';
import type { SeenOrder } from '@gateway/order-transaction/data-access';
import { APP_LOGGER, AppLogger, Metrics, NotDeliveredError, refuseIfPastDeadline } from '@gateway/platform';
import type { Counter } from 'prom-client';
import { CompletionAfterResolution, RecordedOperation, RecordOperation } from '../record-operation/record-operation.use-case';
import { ReleaseReservation } from '../release-reservation/release-reservation.use-case';
import { AcquirerAsk, ANSWER_DISCREPANCIES, discrepancyOf } from './acquirer-answer';
import type { CardOutcome } from './card-outcome';
import { OperationOutcome, OUTCOME_UNKNOWN } from './operation-outcome';
import { hadNoEffect, writeAfterSideEffect } from './reservation-writes';

export const COMPLETIONS_AFTER_RESOLUTION_METRIC = 'gateway_completions_after_resolution_total';
export const ACQUIRER_ANSWERS_REFUSED_METRIC = 'gateway_acquirer_answers_refused_total';

/** The operations that run reserved: the refused answers' counter starts each at 0, so increase() sees the first. */
const RESERVED_API_OPERATIONS = ['AUTHORIZE', 'PAY', 'CAPTURE', 'VOID', 'REFUND'] as const;

/** An order operation as its NATS controller hands it over. */
export interface CardOperationCommand<R> {
  envelope: RequestEnvelope;
  orderId: string;
  transactionId: string;
  /** The validated request. */
  request: R;
  /** The request body, filled from a session the request named (what the merchant sent wins). */
  body: JsonObject;
  /** The body as the merchant sent it, when a session filled `body`: the request hash is computed over it (requestHashBasis). */
  asSent?: JsonObject;
  /** The payment session the request named, with its card sealed by the vault (if it has one). */
  session?: OperationSession;
  /** When the edge stops waiting (OrderOperationMessage.deadline); none from an older edge. */
  deadline?: number;
}

/** `O`: what the call answers (a card operation's outcome, a refund's). */
export interface ReservedOperation<O extends OperationOutcome = CardOutcome> {
  envelope: RequestEnvelope;
  orderId: string;
  transactionId: string;
  apiOperation: string;
  requestHash: string;
  /** The record of the transaction before the call: PENDING, holding its amount. */
  reservation: RecordOperationMessage;
  /** The order as this operation's begin read it (null: none), on which the reservation is decided. */
  seen: SeenOrder | null;
  /**
   * The operation's deadline: past it, the reservation, the first thing the operation changes, is
   * not made and the operation is refused unprocessed (docs/decisions/operation-deadline.md),
   * also when it passes while the reservation waits for its database connection.
   */
  deadline?: number;
  /** The call that moves the money. Throws what the callee threw; this decides whether anything can have happened. */
  perform: () => Promise<O>;
  /**
   * What the call asked for: an acquirer's successful answer that disagrees with it (more than
   * asked, a part not accepted, another currency, nothing) is recorded UNKNOWN, never as it stands
   * (docs/decisions/acquirer-answer-checks.md).
   */
  asked: AcquirerAsk;
  /** The record of the call's outcome (OUTCOME_UNKNOWN when it gave none), replacing the reservation. */
  completion: (outcome: O | typeof OUTCOME_UNKNOWN) => RecordOperationMessage;
  /** The clear error when the one who would move the money did not answer at all. */
  unavailable: () => GatewayError;
  /**
   * The log lines an operator reconciles from: how they name the operation ('card operation'
   * unless given) and what they carry besides its ids (a refund's route).
   */
  log?: { name: string; fields?: Record<string, string> };
}

/**
 * Reserve, call, complete (docs/decisions/refund-reservation.md), for every operation that moves
 * money (AUTHORIZE, PAY, CAPTURE, VOID, REFUND): the transaction is recorded PENDING on the order
 * as it stands (ledger-records-on-row-version.md) before the money-moving call, so the ledger's
 * limits (capture limit, refund limit) refuse what they must before money moves, a call refused
 * before doing anything releases the reservation, and one that reached its callee is always
 * recorded (UNKNOWN when nobody can say what happened).
 */
@Injectable()
export class RunReservedOperation {
  private readonly disagreements: Counter<string>;
  private readonly refusedAnswers: Counter<string>;

  constructor(
    private readonly record: RecordOperation,
    private readonly release: ReleaseReservation,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    metrics: Metrics,
  ) {
    this.disagreements = metrics.counter(
      COMPLETIONS_AFTER_RESOLUTION_METRIC,
      'Card operations whose own outcome arrived after their reservation had been resolved as abandoned (by an inquiry or an operator) with another outcome: the ledger and the acquirer disagree until reconciled, by API operation, outcome recorded and outcome performed.',
      ['operation', 'recorded', 'performed'],
    );
    this.refusedAnswers = metrics.counter(
      ACQUIRER_ANSWERS_REFUSED_METRIC,
      'Successful acquirer answers that disagreed with what the card operation asked (more than asked, a partial approval not accepted, another currency, nothing approved), recorded UNKNOWN instead, by API operation and discrepancy.',
      ['operation', 'discrepancy'],
      RESERVED_API_OPERATIONS.flatMap((operation) => ANSWER_DISCREPANCIES.map((discrepancy) => ({ operation, discrepancy }))),
    );
  }

  /** The operation's answer: the completed record's, or a replay's (`replayed`) when the same request reserved first. */
  async execute<O extends OperationOutcome>(operation: ReservedOperation<O>): Promise<RecordedOperation> {
    // Checked twice: here, after begin's read (under overload the backlog waits for the database
    // pool there), so a message already late takes no connection; and by the reservation's write
    // once it holds its own connection, the pool's queue again, before it writes anything. From
    // the reservation on, the operation runs to its completion whatever the time: the call and
    // the record that completes it are never refused.
    refuseIfPastDeadline(operation.deadline);
    const reserved = await this.record.execute(operation.reservation, 'RESERVE', operation.seen, operation.deadline);
    if (reserved.replayed) {
      // The same request reserved first (it raced this one without the order lock).
      return reserved;
    }
    const outcome = this.checked(operation, await this.perform(operation));
    return this.complete(operation, outcome, reserved.written);
  }

  /**
   * The acquirer's answer as the ledger may record it. A success that disagrees with what was
   * asked would move the order's totals by money the merchant never asked to move (or in another
   * currency): the acquirer did answer, so money may have moved, in an amount nobody can vouch
   * for. It is recorded UNKNOWN, the amount asked kept reserved until an inquiry or an operator
   * learns the outcome, and logged and counted for reconciliation.
   */
  private checked<O extends OperationOutcome>(operation: ReservedOperation<O>, outcome: O | typeof OUTCOME_UNKNOWN): O | typeof OUTCOME_UNKNOWN {
    const answer: OperationOutcome = outcome;
    const discrepancy = discrepancyOf(operation.asked, answer);
    if (!discrepancy) {
      return outcome;
    }
    const { orderId, transactionId, apiOperation } = operation;
    this.refusedAnswers.inc({ operation: apiOperation, discrepancy: discrepancy.kind });
    this.logger.error(
      {
        orderId,
        transactionId,
        apiOperation,
        discrepancy: discrepancy.kind,
        detail: discrepancy.detail,
        answeredGatewayCode: answer.gatewayCode,
        // The acquirer's own references, to find the transaction in its records; never card data.
        ...(typeof answer.acquirer?.id === 'string' ? { acquirerId: answer.acquirer.id } : {}),
        ...(typeof answer.acquirer?.transactionId === 'string' ? { acquirerTransactionId: answer.acquirer.transactionId } : {}),
        ...(answer.receipt ? { receipt: answer.receipt } : {}),
        ...operation.log?.fields,
      },
      `${logName(operation)} answered by the acquirer with a success that disagrees with what was asked: recorded as UNKNOWN, amount asked kept reserved; reconcile this transaction with the acquirer`,
    );
    return OUTCOME_UNKNOWN;
  }

  /**
   * The call. Refused before anything happened (hadNoEffect: a 4xx, nobody serving the subject):
   * the reservation is released and the error answered. No outcome at all (a timeout, a fault):
   * UNKNOWN, since the money may have moved.
   */
  private async perform<O extends OperationOutcome>(operation: ReservedOperation<O>): Promise<O | typeof OUTCOME_UNKNOWN> {
    const { orderId, transactionId, apiOperation } = operation;
    const name = logName(operation);
    try {
      return await operation.perform();
    } catch (err) {
      if (hadNoEffect(err)) {
        const release = {
          merchantId: operation.envelope.merchant.id,
          orderId,
          transactionId,
          apiOperation,
          requestHash: operation.requestHash,
          fencingToken: operation.envelope.fencingToken ?? '0',
        };
        await writeAfterSideEffect(
          () => this.release.execute(release),
          (releaseErr) =>
            this.logger.error(
              { err: releaseErr, orderId, transactionId, apiOperation, ...operation.log?.fields },
              `${name} refused before any money moved, but its reservation could not be released: it stays PENDING holding its amount; release it`,
            ),
        );
        throw err instanceof NotDeliveredError ? operation.unavailable() : err;
      }
      this.logger.warn(
        { err, orderId, transactionId, apiOperation, ...operation.log?.fields },
        `${name} outcome unknown: recorded as UNKNOWN, amount kept reserved`,
      );
      return OUTCOME_UNKNOWN;
    }
  }

  /**
   * Money has moved (or may have): the ledger must record it, so a failed write is retried.
   * `reserved`: the order as the reservation wrote it (written again only if still that version).
   */
  private async complete<O extends OperationOutcome>(
    operation: ReservedOperation<O>,
    outcome: O | typeof OUTCOME_UNKNOWN,
    reserved: SeenOrder | undefined,
  ): Promise<RecordedOperation> {
    const message = operation.completion(outcome);
    const { orderId, transactionId } = operation;
    return writeAfterSideEffect(
      () => this.record.execute(message, 'COMPLETE', reserved),
      (err) => {
        if (err instanceof CompletionAfterResolution) {
          // Resolved as abandoned while this operation still ran: the money moved as `outcome`
          // says, the ledger says `recorded` (a payment approved but recorded DECLINED has its
          // amount freed). Nothing overwrites either; a person reconciles.
          this.disagreements.inc({ operation: operation.apiOperation, recorded: err.recorded.gatewayCode, performed: outcome.gatewayCode });
          this.logger.error(
            {
              err,
              orderId,
              transactionId,
              apiOperation: operation.apiOperation,
              result: outcome.result,
              gatewayCode: outcome.gatewayCode,
              recordedResult: err.recorded.result,
              recordedGatewayCode: err.recorded.gatewayCode,
              ...operation.log?.fields,
            },
            `${logName(operation)} performed after its reservation was resolved as abandoned with another outcome: the ledger and the acquirer disagree, reconcile this transaction`,
          );
          return;
        }
        this.logger.error(
          { err, orderId, transactionId, result: outcome.result, gatewayCode: outcome.gatewayCode },
          `${logName(operation)} performed but not recorded: reconcile this transaction, it stays PENDING in the ledger`,
        );
      },
    );
  }
}

function logName(operation: Pick<ReservedOperation, 'log'>): string {
  return operation.log?.name ?? 'card operation';
}

/** The keys of `values` that are defined, as a JSON object (undefined groups left out). */
export function definedGroups(values: Record<string, JsonValue | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined) {
      out[key] = value;
    }
  }
  return out;
}

/** A request group as plain JSON. */
export function plain(value: object | undefined): JsonObject | undefined {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as JsonObject);
}
