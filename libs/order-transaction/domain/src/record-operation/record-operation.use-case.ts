import { Inject, Injectable } from '@nestjs/common';
import { GatewayError, JsonObject, RecordOperationMessage, RecordOperationReply } from '@gateway/contracts';
import {
  LedgerRepository,
  LedgerWrite,
  LedgerWriter,
  LockedOrder,
  lockedAgreementText,
  OrderRow,
  ReservedAnnouncement,
  SeenOrder,
  StoredResponse,
  TransactionRow,
  UnknownInquiries,
} from '@gateway/order-transaction/data-access';
import { Money } from '@gateway/money';
import { APP_LOGGER, AppLogger, mayHaveCommitted, refuseIfPastDeadline } from '@gateway/platform';
import type { EntityManager } from 'typeorm';
import { LEDGER_EVENTS, LedgerEvents, OrderRecordedEvent } from '../ledger-events/ledger-events';
import { assertFenceCurrent, assertUpdatable, noSuchTransaction, replayOf, transactionIdTaken } from '../ledger-protocol/ledger-checks';
import { completeResponse } from '../ledger-response/complete-response';
import { OrderSnapshot } from '../ledger-response/order-snapshot';
import { recordEntry } from '../order-state/record-entry';
import { entryOfRow, orderRowWrite } from './ledger-write';
import { reservationFound } from './lost-reservation';
import {
  AgreementText,
  assertNotReservedAgain,
  assertOrderCurrency,
  assertTypeChangeAllowed,
  entryOf,
  parseRecordInput,
  RecordInput,
  withoutStoredAgreementText,
} from './record-input';

/**
 * How a record takes part in a reservation (docs/decisions/refund-reservation.md). Only this
 * service's own use cases reserve, in-process; records from other services are plain RECORDs.
 *   RESERVE   a RECORD of a PENDING transaction that holds its amount before the side effect;
 *             not announced to the webhook outbox, since it may still be released, and leaving
 *             an existing order's own fields (amount, details, notification URL) to COMPLETE.
 *             A write whose answer was lost with its connection is read back (reservationAnswerLost).
 *   COMPLETE  the UPDATE of a transaction this process reserved, with the side effect's
 *             outcome. Not fenced (the reservation proved the lock, and money that moved must
 *             be recorded even if a newer token reached the order since), no replay (the stored
 *             response is the reservation's own, and is replaced).
 */
export type RecordStep = 'RECORD' | 'RESERVE' | 'COMPLETE';

/** A record's answer, and whether it was a replay of a body stored before (nothing written). */
export interface RecordedOperation extends RecordOperationReply {
  replayed: boolean;
  /**
   * The order as this record wrote it (none for a replay): the `seen` of the operation's next
   * record in this process (a reservation's completion), which then needs no read.
   */
  written?: SeenOrder;
}

/** What a record writes: the order, the transaction and the stored response, and what goes with them. */
export interface RecordWrite {
  write: LedgerWrite;
  body: JsonObject;
  /**
   * Writes what goes with the record, in its database transaction before commit: the webhook
   * outbox row that announces it, the inquiry of an UNKNOWN outcome. Null when there is nothing
   * (a reservation, which may still be released; a merchant without notifications): the
   * record is then one statement alone.
   */
  alongside: ((manager: EntityManager) => Promise<unknown>) | null;
}

/** A record on an existing order: a write, or an answer without one (the body stored before for the same request). */
export type OrderRecord = RecordWrite | { replay: JsonObject };

/** The order a record writes, and the operation whose stored response a view of it carries. */
export interface RecordKey {
  merchantId: string;
  orderId: string;
  transactionId: string;
  apiOperation: string;
}

/**
 * A record on an existing order that another of the ledger's own use cases decides
 * (ResolveUnknown): `decide` runs on the order as read, without a lock or on the locked row,
 * and is written the way every record is (RecordOperation.recordDecided).
 */
export interface DecidedRecord extends RecordKey {
  /** The write, the answer without one, or the refusal it throws: no I/O (it may run twice). */
  decide(order: LockedOrder, at: Date): OrderRecord;
  /** The error when there is no such order. */
  noOrder(): Error;
  /**
   * The record when there is no such order, instead of noOrder's error: a new order and its
   * first transaction (RecordLostTransaction), inserted as every new order is.
   */
  create?(at: Date): RecordWrite;
}

/**
 * A record's order and operation, and its decision on a view of the order: what either way of
 * writing it needs. `beforeWrite`: called once the write's connection is held, before its first
 * statement; it refuses (throws) a write that must not be made any more (an operation's deadline).
 */
type Decision = RecordKey & Pick<DecidedRecord, 'decide'> & { beforeWrite?: () => void };

/**
 * The ledger's second step, after an operation's side effects: checks the fencing token,
 * replays or refuses a repeated transaction id, derives totals and status, enforces the money
 * rules, writes the order, the transaction and the stored response in one statement, and gives
 * the webhook outbox its chance to write (in the same database transaction), as it queues the
 * inquiry of a card transaction it leaves UNKNOWN.
 *
 * Each record is decided on a consistent view of its order and written only if that view is
 * still current, three ways, cheapest first:
 *   - a new order that begin saw as new (`newOrder`): its insert alone, which writes nothing if
 *     the order exists by then (1 round trip; 4 with an outbox row: begin, insert, row, commit);
 *   - an existing order: read without a lock (or as begin read it, or as the operation's
 *     previous record wrote it: `seen`), then written by one statement conditioned on the
 *     order row's version (2 round trips, 1 with `seen`; 4-5 with an outbox row);
 *   - when either finds the order changed (a concurrent record), or the order missing without
 *     the hint: one database transaction on the locked order row (4 round trips: begin, lock
 *     and read, write, commit; one more after waiting for the lock), which always decides.
 * Refusals are decided the same way on each: a view read without a lock is a committed state
 * of the order, as a record that locked it first would have found it.
 */
@Injectable()
export class RecordOperation {
  constructor(
    private readonly ledger: LedgerRepository,
    @Inject(LEDGER_EVENTS) private readonly events: LedgerEvents,
    private readonly inquiries: UnknownInquiries,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  /**
   * `seen`: the order as this operation's begin read it in this process (BeginOperation.read),
   * or as its previous record wrote it (`RecordedOperation.written`); the record then needs no
   * read of its own (null: begin saw no order).
   *
   * `deadline`: the operation's (OrderOperationMessage.deadline), for the record that is its first
   * change (a reservation, a refund's approval record). Once the write's connection is held and
   * before anything is written, a record past it is refused unprocessed (PastDeadlineError): the
   * wait for that connection is the pool's queue, where an overload's backlog waits
   * (docs/decisions/operation-deadline.md). Never given for a completion: what was begun is
   * recorded whatever the time.
   */
  async execute(message: RecordOperationMessage, step: RecordStep = 'RECORD', seen?: SeenOrder | null, deadline?: number): Promise<RecordedOperation> {
    if (step === 'COMPLETE' && deadline !== undefined) {
      throw new Error('a completion is never refused for time: it records what was begun');
    }
    const input = parseRecordInput(message);
    const beforeWrite = deadline === undefined ? undefined : () => refuseIfPastDeadline(deadline);
    const record: Decision = {
      merchantId: input.merchant.id,
      orderId: input.orderId,
      transactionId: input.transactionId,
      apiOperation: input.apiOperation,
      decide: (order, at) => this.recordOnOrder(order, input, step, at),
      beforeWrite,
    };
    try {
      const recorded =
        input.newOrder && input.mode === 'CREATE'
          ? await this.createOrderFirst(input, step, beforeWrite)
          : await this.recordOnSeenOrder(record, seen);
      return recorded ?? (await this.recordLocked(record, () => this.newOrder(input, step, new Date())));
    } catch (err) {
      if (err instanceof AgreementTextErased) {
        // Rolled back, nothing written: recorded again without the text, as a later payment of the series would be.
        return this.execute(withoutStoredAgreementText(message), step, seen, deadline);
      }
      if (step !== 'RESERVE' || !mayHaveCommitted(err)) {
        throw err;
      }
      return this.reservationAnswerLost(record, input, err);
    }
  }

  /**
   * A reservation whose write may have committed though its answer was lost (the connection
   * broke under the statement or its COMMIT): the order is read again. This request's own
   * reservation there means it committed, and the operation carries on from it, as the answer
   * would have; without it, it rolled back, and the error stands (503, nothing was reserved and
   * no side effect runs). Another request's there is decided as the reservation would have been
   * decided on that view: a replay of the same request's body, or its refusal. Answering the
   * error whatever happened left a reservation that committed PENDING, and the merchant's
   * retries replaying it, until an operator resolved it (docs/decisions/refund-reservation.md,
   * amendment of 2026-11-26).
   */
  private async reservationAnswerLost(decision: Decision, input: RecordInput, lost: unknown): Promise<RecordedOperation> {
    const { merchantId, orderId, transactionId, apiOperation } = decision;
    const seen = await this.ledger.findForBegin(merchantId, orderId, transactionId, apiOperation).catch(() => {
      // Still unreachable: nobody can tell yet, so the database's error is the answer.
      throw lost;
    });
    const found = reservationFound(seen, input);
    if (found.found === 'NONE') {
      throw lost;
    }
    // Rare, and an operator reading a database incident wants to know what became of each.
    this.logger.warn({ err: lost, orderId, transactionId, found: found.found }, 'reservation read back after its answer was lost with the connection');
    if (found.found === 'OWN') {
      return { body: found.body, replayed: false, written: found.seen };
    }
    const record = decision.decide(found.seen, recordTime(found.seen.order));
    if ('replay' in record) {
      return { body: record.replay, replayed: true };
    }
    // Not reached: a reservation (a CREATE) on an order holding its transaction id is refused or replayed.
    throw lost;
  }

  /**
   * A record decided by another of the ledger's use cases on an existing order (or, with
   * `create`, on a new one), written as
   * every record on an existing order is: decided on a view read without a lock and written
   * only if the order row is still that version, else decided again on the locked row. The
   * ledger's rules hold the same whatever races it, with or without the edge's lock.
   */
  async recordDecided(record: DecidedRecord): Promise<RecordedOperation> {
    return (
      (await this.recordOnSeenOrder(record)) ??
      this.recordLocked(record, () => {
        if (record.create) {
          return record.create(new Date());
        }
        throw record.noOrder();
      })
    );
  }

  /**
   * An existing order, recorded without taking its lock: read as begin reads it (or the view
   * given), the record decided on that view, and written only if the order row is still the
   * version read. Null when the locked way must decide: the order does not exist, or
   * changed after the read (then nothing was written).
   */
  private async recordOnSeenOrder(decision: Decision, given?: SeenOrder | null): Promise<RecordedOperation | null> {
    const { merchantId, orderId, transactionId, apiOperation } = decision;
    const seen = given ?? (await this.ledger.findForBegin(merchantId, orderId, transactionId, apiOperation));
    if (!seen) {
      return null;
    }
    assertSeenFor(seen, decision);
    const record = decision.decide(seen, recordTime(seen.order));
    if ('replay' in record) {
      return { body: record.replay, replayed: true };
    }
    const { alongside } = record;
    const written = alongside
      ? await this.ledger.transaction(async (writer) => {
          decision.beforeWrite?.();
          const applied = await writer.applyToOrderIfUnchanged(record.write, seen);
          if (applied) {
            await alongside(writer.manager);
          }
          return applied;
        })
      : await this.autocommit(decision.beforeWrite, (writer) => writer.applyToOrderIfUnchanged(record.write, seen));
    return written ? { body: record.body, replayed: false, written } : null;
  }

  /**
   * One database transaction on the locked order row: decides whatever the order's state.
   * `create`: the record when there is no order (a new order's, or the refusal it throws).
   */
  private recordLocked(decision: Decision, create: () => RecordWrite): Promise<RecordedOperation> {
    const { merchantId, orderId, transactionId, apiOperation } = decision;
    return this.ledger.transaction(async (writer) => {
      // First thing: nothing is locked or written yet, so a refusal rolls back an empty transaction.
      decision.beforeWrite?.();
      const lock = () => writer.lockOrder(merchantId, orderId, transactionId, apiOperation);
      const locked = await lock();
      if (!locked) {
        const created = await this.createOrder(writer, create());
        if (created) {
          return created;
        }
      }
      // Existing, or created by a concurrent record since our probe: wait for its lock.
      const order = locked ?? (await lock());
      if (!order) {
        throw new Error('order neither insertable nor lockable');
      }
      const record = decision.decide(order, recordTime(order.order));
      if ('replay' in record) {
        return { body: record.replay, replayed: true };
      }
      const written = await writer.applyToOrder(record.write, order);
      await record.alongside?.(writer.manager);
      return { body: record.body, replayed: false, written };
    });
  }

  /**
   * What a record writes with it besides the ledger's rows (null: nothing, so it needs no
   * transaction): the outbox row announcing `event`, and, for a card transaction it leaves
   * UNKNOWN, the inquiry that will ask the acquirer what became of it (InquireUnknown). First,
   * for a record carrying a stored agreement's text, the check that the agreement still holds it
   * (assertAgreementTextHeld), so the record is in a transaction then.
   */
  private writtenAlongside(event: OrderRecordedEvent | null, input: RecordInput): RecordWrite['alongside'] {
    const announced = event !== null && this.events.announces(event) ? event : null;
    const { result, fundingType } = input.transaction;
    const inquiry =
      event !== null && result === 'UNKNOWN' && fundingType === 'CARD'
        ? { merchantId: input.merchant.id, orderId: input.orderId, transactionId: input.transactionId, merchantMode: input.merchant.mode, recordedAt: event.recordedAt }
        : null;
    const { agreementText } = input;
    if (!announced && !inquiry && !agreementText) {
      return null;
    }
    return async (manager) => {
      if (agreementText) {
        await assertAgreementTextHeld(manager, input.merchant.id, agreementText);
      }
      if (inquiry) {
        await this.inquiries.add(manager, inquiry);
      }
      if (announced) {
        await this.events.orderRecorded(manager, announced);
      }
    };
  }

  /**
   * The order begin saw as new, written before any lock is taken: by its insert statement
   * alone (autocommit: atomic, and committed when it returns) unless an outbox row is written
   * with it, then both in one transaction. Null when the hint no longer holds: the order exists
   * by now (a concurrent first record), or the rules refuse the write on an empty order; the
   * record then goes the locked way, exactly as without the hint.
   */
  private async createOrderFirst(input: RecordInput, step: RecordStep, beforeWrite?: () => void): Promise<RecordedOperation | null> {
    let created: RecordWrite;
    try {
      created = this.newOrder(input, step, new Date());
    } catch (err) {
      if (err instanceof GatewayError) {
        return null;
      }
      throw err;
    }
    if (created.alongside) {
      return this.ledger.transaction((writer) => {
        beforeWrite?.();
        return this.createOrder(writer, created);
      });
    }
    return this.autocommit(beforeWrite, (writer) => this.createOrder(writer, created));
  }

  /**
   * A write of one statement, in autocommit: on a connection of its own, or, when it may be
   * refused before it is made (`beforeWrite`), on one held from that check to the statement.
   */
  private autocommit<T>(beforeWrite: (() => void) | undefined, write: (writer: LedgerWriter) => Promise<T>): Promise<T> {
    return beforeWrite ? this.ledger.onConnection(beforeWrite, write) : write(this.ledger.autocommitWriter());
  }

  private newOrder(input: RecordInput, step: RecordStep, at: Date): RecordWrite {
    if (input.mode === 'UPDATE') {
      throw noSuchTransaction(input.transactionId);
    }
    const currency = input.orderCurrency;
    assertOrderCurrency(currency, input);
    const { state } = recordEntry(currency, [], entryOf(input.transaction), {
      excessiveRefundAllowed: this.excessiveRefund(input),
    });
    const order: OrderSnapshot = {
      ...state,
      id: input.orderId,
      currency,
      amount: input.orderAmount ?? input.transaction.amount,
      createdAt: at,
      updatedAt: at,
    };
    const body = completeResponse(input.response, order, input.transaction, at);
    const announcement = this.keptAnnouncement(input, true, input.notificationUrl, body, at);
    return {
      write: ledgerWrite(input, order, input.details, input.notificationUrl, 1, body, at, input.fence, announcement),
      body,
      alongside: this.writtenAlongside(step === 'RESERVE' ? null : eventOf(input, true, input.notificationUrl, body, at), input),
    };
  }

  /** Null when the order exists after all (created concurrently): nothing was written then. */
  private async createOrder(writer: LedgerWriter, created: RecordWrite): Promise<RecordedOperation | null> {
    const written = await writer.insertNewOrder(created.write);
    if (!written) {
      return null;
    }
    await created.alongside?.(writer.manager);
    return { body: created.body, replayed: false, written };
  }

  /** The record on the order as read (locked or not), or the refusal it throws: no I/O. */
  private recordOnOrder({ order: row, contents }: LockedOrder, input: RecordInput, step: RecordStep, at: Date): OrderRecord {
    if (step !== 'COMPLETE') {
      // A reservation comes before its operation's call; a RECORD (a VERIFY's) may come after one.
      assertFenceCurrent(input.fence, row, step === 'RESERVE');
    }
    const existing = contents.transactions.find((t) => t.transactionId === input.transactionId);
    if (step === 'COMPLETE') {
      const landed = completionLanded(existing, contents.stored, input);
      if (landed) {
        return { replay: landed };
      }
      assertReservationHeld(existing, contents.stored?.requestHash, input);
    } else {
      const replay = replayOf(contents.stored, input.requestHash, input);
      if (replay) {
        return { replay };
      }
    }
    this.assertModeFits(input, existing);
    assertOrderCurrency(row.currency, input);

    const { state } = recordEntry(row.currency, contents.transactions.map(entryOfRow), entryOf(input.transaction), {
      replacing: existing ? contents.transactions.indexOf(existing) : undefined,
      excessiveRefundAllowed: this.excessiveRefund(input),
    });

    // A reservation may still be released, and a release must leave the order as it was: it
    // holds its amount (in the totals and the limits) but leaves the order's own fields as
    // they are; its completion carries the same ones and writes them (ReleaseReservation).
    const reserving = step === 'RESERVE';
    const order: OrderSnapshot = {
      ...state,
      id: row.orderId,
      currency: row.currency,
      amount: (reserving ? null : input.orderAmount) ?? Money.of(row.amount, row.currency),
      createdAt: row.createdAt,
      updatedAt: at,
    };
    const body = completeResponse(input.response, order, input.transaction, at);
    const notificationUrl = reserving ? row.notificationUrl : (input.notificationUrl ?? row.notificationUrl);
    const details = reserving ? row.details : { ...row.details, ...input.details };
    // A completion may carry an older token than the order's newest: keep the newest.
    const fence = input.fence > BigInt(row.lastFencingToken) ? input.fence : BigInt(row.lastFencingToken);
    // A completed reservation that opened the order announces its creation now.
    const createdOrder = step === 'COMPLETE' && existing?.sequence === 1;
    // The URL the completion announces to: a reservation leaves the order's as it is (above).
    const announcement = this.keptAnnouncement(input, createdOrder, input.notificationUrl ?? row.notificationUrl, body, at);
    const write = ledgerWrite(input, order, details, notificationUrl, row.operationCount + 1, body, at, fence, announcement);
    return {
      write: { ...write, response: { ...write.response, replaces: step === 'COMPLETE' } },
      body,
      alongside: this.writtenAlongside(step === 'RESERVE' ? null : eventOf(input, createdOrder, notificationUrl, body, at), input),
    };
  }

  /**
   * What a card transaction whose outcome this record leaves open (a reservation, PENDING; an
   * UNKNOWN outcome) keeps for its resolution, which serves no request: how the record that
   * completes it would announce it, with this request's merchant context (`notificationUrl` the
   * one that record would use), or null where it would not be announced. Every other record keeps
   * nothing, and by writing null uses up what a reservation kept
   * (docs/decisions/unknown-resolution.md, amendment 2026-11-27).
   */
  private keptAnnouncement(input: RecordInput, createdOrder: boolean, notificationUrl: string | null, body: JsonObject, at: Date): ReservedAnnouncement | null {
    const { result, fundingType } = input.transaction;
    if (fundingType !== 'CARD' || (result !== 'PENDING' && result !== 'UNKNOWN')) {
      return null;
    }
    return this.events.reservedAnnouncement?.(eventOf(input, createdOrder, notificationUrl, body, at)) ?? null;
  }

  private assertModeFits(input: RecordInput, existing: TransactionRow | undefined): void {
    if (input.mode === 'CREATE' && existing) {
      throw transactionIdTaken(input.transactionId);
    }
    if (input.mode === 'UPDATE') {
      if (!existing) {
        throw noSuchTransaction(input.transactionId);
      }
      assertUpdatable(existing, input.updates);
      assertTypeChangeAllowed(existing.type, input.transaction.type);
      assertNotReservedAgain(input.transaction);
    }
  }

  private excessiveRefund(input: RecordInput): boolean {
    return input.merchant.settings.privileges.excessiveRefund;
  }
}

/**
 * A record carried an agreement's stored text that the agreement no longer holds: its
 * transaction is rolled back, and the record made again without the text (RecordOperation.execute).
 */
class AgreementTextErased extends Error {
  constructor(agreementId: string) {
    super(`agreement ${agreementId}'s custom data was erased after the operation read it`);
    this.name = 'AgreementTextErased';
  }
}

/**
 * The text the record carries is still the agreement's, and stays so until the record commits.
 * Read with the agreement's row held, after the record wrote (or locked) its order's row: the
 * payer's erasure takes the order's row, then the agreement's (PayerDataRecords), so the two
 * wait for each other in one order only. An erasure that cleared the text after the operation
 * read it has committed by now (AgreementTextErased), or waits for this record's commit: the
 * text is then on the record before the erasure, as on any earlier payment of the series
 * (docs/decisions/payer-personal-data.md, amendment 2026-11-27).
 */
async function assertAgreementTextHeld(manager: EntityManager, merchantId: string, { agreementId, customData }: AgreementText): Promise<void> {
  if ((await lockedAgreementText(manager, merchantId, agreementId)) !== customData) {
    throw new AgreementTextErased(agreementId);
  }
}

/**
 * Taken once the order is locked, so records are timed in the order they are applied; after
 * the order's last update (by a millisecond at least), so a replica with a slower clock, or two
 * records within one millisecond, cannot move lastUpdatedTime backwards or leave two changes
 * with the same one: receivers order notifications by it (docs/webhooks.md). Every ledger write
 * on an order takes its time here (RecordLostTransaction too).
 */
export function recordTime(order: OrderRow): Date {
  return new Date(Math.max(Date.now(), order.updatedAt.getTime() + 1));
}

/**
 * A view given by the caller must be of the order this record writes, read or written for
 * this same operation: its stored response is the one replays and completions are checked on.
 */
function assertSeenFor({ order, operation }: SeenOrder, key: RecordKey): void {
  const same =
    order.merchantId === key.merchantId &&
    order.orderId === key.orderId &&
    operation.transactionId === key.transactionId &&
    operation.apiOperation === key.apiOperation;
  if (!same) {
    throw new Error(
      `record of ${key.apiOperation} ${key.orderId}/${key.transactionId} given the view of ${operation.apiOperation} ${order.orderId}/${operation.transactionId}`,
    );
  }
}

/**
 * A completion retried after its first attempt committed but its answer was lost (a dropped
 * connection): the transaction already holds this very outcome, so the stored response is the
 * answer. Another outcome recorded meanwhile is no retry of this one and stays an error.
 */
function completionLanded(existing: TransactionRow | undefined, stored: StoredResponse | null, input: RecordInput): JsonObject | null {
  const landed =
    existing !== undefined &&
    existing.result !== 'PENDING' &&
    existing.result === input.transaction.result &&
    existing.gatewayCode === input.transaction.gatewayCode &&
    stored?.requestHash === input.requestHash;
  return landed ? stored.body : null;
}

/**
 * A completion that finds its own reservation already recorded with another outcome: an inquiry
 * or an operator resolved it as abandoned (ABANDONED_RESERVATION_AFTER_MS) while this operation
 * still ran (a process paused past the threshold, a completion retried past its bound). What the
 * acquirer did and what the ledger says now disagree: never overwritten here, reconciled by a
 * person (RunReservedOperation logs and counts it; docs/decisions/unknown-resolution.md,
 * amendment of 2026-11-26).
 */
export class CompletionAfterResolution extends Error {
  readonly recorded: { result: string; gatewayCode: string };

  constructor(input: RecordInput, existing: TransactionRow) {
    super(
      `no reservation of ${input.apiOperation} ${input.orderId}/${input.transactionId} to complete: ` +
        `recorded ${existing.result} (${existing.gatewayCode}) meanwhile, completion ${input.transaction.result} (${input.transaction.gatewayCode})`,
    );
    this.name = 'CompletionAfterResolution';
    this.recorded = { result: existing.result, gatewayCode: existing.gatewayCode };
  }
}

/**
 * A completion must find the reservation it completes: the same transaction, still PENDING,
 * stored for the same request. Anything else is a fault in this service, never a merchant's.
 */
function assertReservationHeld(existing: TransactionRow | undefined, storedHash: string | undefined, input: RecordInput): void {
  if (existing && existing.result !== 'PENDING' && storedHash === input.requestHash) {
    throw new CompletionAfterResolution(input, existing);
  }
  if (!existing || existing.result !== 'PENDING' || storedHash !== input.requestHash) {
    throw new Error(`no reservation of ${input.apiOperation} ${input.orderId}/${input.transactionId} to complete`);
  }
}

function eventOf(
  input: RecordInput,
  createdOrder: boolean,
  notificationUrl: string | null,
  body: JsonObject,
  at: Date,
): OrderRecordedEvent {
  return {
    merchant: input.merchant,
    orderId: input.orderId,
    transactionId: input.transactionId,
    apiOperation: input.apiOperation,
    createdOrder,
    notificationUrl,
    body,
    recordedAt: at,
  };
}

function ledgerWrite(
  input: RecordInput,
  order: OrderSnapshot,
  details: JsonObject,
  notificationUrl: string | null,
  sequence: number,
  body: JsonObject,
  at: Date,
  fence: bigint,
  announcement: ReservedAnnouncement | null,
): LedgerWrite {
  const t = input.transaction;
  return {
    order: orderRowWrite(order, { merchantId: input.merchant.id, details, notificationUrl, fence, sequence, at }),
    transaction: {
      transactionId: input.transactionId,
      apiOperation: input.apiOperation,
      type: t.type,
      amount: t.amount.toFixed(),
      currency: t.amount.currency,
      result: t.result,
      gatewayCode: t.gatewayCode,
      targetTransactionId: t.targetTransactionId,
      fundingType: t.fundingType,
      taxAmount: t.taxAmount?.toFixed() ?? null,
      announcement,
    },
    response: { apiOperation: input.apiOperation, requestHash: input.requestHash, body },
    sequence,
    at,
  };
}
