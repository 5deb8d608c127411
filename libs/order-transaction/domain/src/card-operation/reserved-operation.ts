import { Inject, Injectable } from '@nestjs/common';
import { GatewayError, JsonObject, JsonValue, OperationSession, RecordOperationMessage, RequestEnvelope } from '@gateway/contracts';
import type { SeenOrder } from '@gateway/order-transaction/data-access';
import { APP_LOGGER, AppLogger, NotDeliveredError } from '@gateway/platform';
import { RecordedOperation, RecordOperation } from '../record-operation/record-operation.use-case';
import { ReleaseReservation } from '../release-reservation/release-reservation.use-case';
import { CARD_OUTCOME_UNKNOWN, CardOutcome } from './card-outcome';
import { hadNoEffect, writeAfterSideEffect } from './reservation-writes';

/** An order operation as its NATS controller hands it over. */
export interface CardOperationCommand<R> {
  envelope: RequestEnvelope;
  orderId: string;
  transactionId: string;
  /** The validated request. */
  request: R;
  /** The body as the merchant sent it: its canonical hash identifies the request for replays. */
  body: JsonObject;
  /** The payment session the request named, with its card sealed by the vault (if it has one). */
  session?: OperationSession;
}

export interface ReservedOperation {
  envelope: RequestEnvelope;
  orderId: string;
  transactionId: string;
  apiOperation: string;
  requestHash: string;
  /** The record of the transaction before the call: PENDING, holding its amount. */
  reservation: RecordOperationMessage;
  /** The order as this operation's begin read it (null: none), on which the reservation is decided. */
  seen: SeenOrder | null;
  /** The acquirer call. Throws what the callee threw; this decides whether anything can have happened. */
  perform: () => Promise<CardOutcome>;
  /** The record of the call's outcome, replacing the reservation. */
  completion: (outcome: CardOutcome) => RecordOperationMessage;
  /** The clear error when the one who would move the money did not answer at all. */
  unavailable: () => GatewayError;
}

/**
 * Reserve, call, complete (docs/decisions/refund-reservation.md, which card payments follow):
 * the transaction is recorded PENDING on the order as it stands (ledger-records-on-row-version.md)
 * before the acquirer is called, so the ledger's limits (capture limit, refund limit) refuse what
 * they must before money moves, a call the acquirer refused before doing anything releases the
 * reservation, and one that reached it is always recorded (UNKNOWN when nobody can say what
 * happened).
 */
@Injectable()
export class RunReservedOperation {
  constructor(
    private readonly record: RecordOperation,
    private readonly release: ReleaseReservation,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  async execute(operation: ReservedOperation): Promise<JsonObject> {
    const reserved = await this.record.execute(operation.reservation, 'RESERVE', operation.seen);
    if (reserved.replayed) {
      // The same request reserved first (it raced this one without the order lock).
      return reserved.body;
    }
    const outcome = await this.perform(operation);
    return (await this.complete(operation, outcome, reserved.written)).body;
  }

  private async perform(operation: ReservedOperation): Promise<CardOutcome> {
    try {
      return await operation.perform();
    } catch (err) {
      if (hadNoEffect(err)) {
        const release = {
          merchantId: operation.envelope.merchant.id,
          orderId: operation.orderId,
          transactionId: operation.transactionId,
          apiOperation: operation.apiOperation,
          requestHash: operation.requestHash,
          fencingToken: operation.envelope.fencingToken ?? '0',
        };
        await writeAfterSideEffect(
          () => this.release.execute(release),
          (releaseErr) =>
            this.logger.error(
              { err: releaseErr, orderId: operation.orderId, transactionId: operation.transactionId, apiOperation: operation.apiOperation },
              'card operation refused before any money moved, but its reservation could not be released: it stays PENDING holding its amount; release it',
            ),
        );
        throw err instanceof NotDeliveredError ? operation.unavailable() : err;
      }
      this.logger.warn(
        { err, orderId: operation.orderId, transactionId: operation.transactionId, apiOperation: operation.apiOperation },
        'card operation outcome unknown: recorded as UNKNOWN, amount kept reserved',
      );
      return CARD_OUTCOME_UNKNOWN;
    }
  }

  /** `reserved`: the order as the reservation wrote it (written again only if still that version). */
  private async complete(operation: ReservedOperation, outcome: CardOutcome, reserved: SeenOrder | undefined): Promise<RecordedOperation> {
    const message = operation.completion(outcome);
    return writeAfterSideEffect(
      () => this.record.execute(message, 'COMPLETE', reserved),
      (err) =>
        this.logger.error(
          { err, orderId: operation.orderId, transactionId: operation.transactionId, result: outcome.result, gatewayCode: outcome.gatewayCode },
          'card operation performed but not recorded: reconcile this transaction, it stays PENDING in the ledger',
        ),
    );
  }
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
