import { Inject, Injectable } from '@nestjs/common';
import { GatewayError, JsonObject, LedgerTransactionView } from '@gateway/contracts';
import { LedgerRepository, LedgerWrite, LockedOrder, OrderRow, RECORDED_WITHOUT_REQUEST, TransactionRow } from '@gateway/order-transaction/data-access';
import { Money } from '@gateway/money';
import { APP_LOGGER, AppLogger } from '@gateway/platform';
import { LEDGER_EVENTS, LedgerEvents } from '../ledger-events/ledger-events';
import { completeResponse, RecordedTransaction } from '../ledger-response/complete-response';
import { OrderSnapshot, orderView, snapshotOf } from '../ledger-response/order-snapshot';
import { LedgerEntry } from '../order-state/derive-order-state';
import { recordEntry } from '../order-state/record-entry';
import { entryOfRow, orderRowWrite } from '../record-operation/ledger-write';
import { OrderRecord, RecordOperation, recordTime, RecordWrite } from '../record-operation/record-operation.use-case';
import { asRecordField, LOST_TARGET_TYPES, lostTarget } from './lost-target';
import { actsOnEarlier, conflict, currencyConflict, LostTransaction, lostTransactionResponse, sameRecord } from './lost-transaction';

export interface RecordLostResult {
  /**
   * RECORDED: written now. UNCHANGED: the ledger already holds this transaction as the record
   * says (the command run again); nothing written. WOULD_RECORD: a preview's answer.
   */
  status: 'RECORDED' | 'UNCHANGED' | 'WOULD_RECORD';
  /** The transaction's stored response as it stands (or would): what GET and the merchant's retry answer. */
  body: JsonObject;
  /** Whether a webhook notification was written with it (never in a preview). */
  notified: boolean;
}

/** A record's answer in a preview: what execute would do, or the refusal it would throw. */
export type LostRecordPreview = RecordLostResult | GatewayError;

/** The stored responses of the transactions a record may act on, by transaction id. */
type TargetResponses = ReadonlyMap<string, JsonObject>;

const NO_TARGETS: TargetResponses = new Map();

/**
 * `transactions record-lost`: records in the ledger a card transaction the acquirer processed
 * and the ledger never began, known from the acquirer's records (the window lost in a restore to
 * an earlier point: docs/decisions/backup-and-restore.md). Written through the ledger's own
 * record path (RecordOperation.recordDecided): decided on the order read without a lock and
 * written only if its row is still that version, else decided again on the locked row, or
 * inserted as a new order with its first transaction, in one statement. So each record is all
 * or nothing, a record racing another (or the command run twice) records once, and one that
 * conflicts with what the ledger holds is refused, never written over.
 *
 * The transaction is stored as its operation's response (PAY, AUTHORIZE, CAPTURE, REFUND, VOID)
 * under RECORDED_WITHOUT_REQUEST: the merchant's retry of that operation with the same ids is
 * answered from it when it asks for what the record holds (replayOf: the amount, or a void's
 * target) and reaches no acquirer. A CAPTURE, REFUND or VOID is decided by its operation's own
 * rules (lostTarget) and the ledger's money rules; totals and status are derived under them,
 * so later operations go through the normal path, sent to the acquirer by the reference recorded.
 */
@Injectable()
export class RecordLostTransaction {
  constructor(
    private readonly ledger: LedgerRepository,
    private readonly records: RecordOperation,
    @Inject(LEDGER_EVENTS) private readonly events: LedgerEvents,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  /**
   * What execute would do with each record, in the order given, each decided on the ledger as it
   * is with the records before it applied as execute would write them (in memory): a capture of
   * an authorisation an earlier record opens is decided on that authorisation, and a record an
   * earlier one makes impossible is refused. A refused record is not applied. Writes nothing.
   */
  async preview(records: readonly LostTransaction[]): Promise<LostRecordPreview[]> {
    const applied = new Map<string, LedgerWrite[]>();
    const answers: LostRecordPreview[] = [];
    for (const lost of records) {
      const key = JSON.stringify([lost.merchantId, lost.orderId]);
      const earlier = applied.get(key) ?? [];
      try {
        const read = await this.read(lost);
        const targets = new Map(read.targets);
        const view = withEarlierRecords(read.order, earlier, lost, targets);
        const decided = view ? decideOnOrder(view, lost, recordTime(view.order), targets) : newOrder(lost);
        if ('replay' in decided) {
          answers.push({ status: 'UNCHANGED', body: decided.replay, notified: false });
        } else {
          applied.set(key, [...earlier, decided.write]);
          answers.push({ status: 'WOULD_RECORD', body: decided.body, notified: false });
        }
      } catch (err) {
        if (!(err instanceof GatewayError)) {
          throw err;
        }
        answers.push(err);
      }
    }
    return answers;
  }

  async execute(lost: LostTransaction): Promise<RecordLostResult> {
    const { merchantId, orderId, transactionId, apiOperation } = lost;
    // The target's stored response (its card, shown again on what acts on it) is final once it
    // succeeded, so it is read once, before the record path's own read.
    const { targets } = await this.read(lost);
    let notified = false;
    const recorded = await this.records.recordDecided({
      merchantId,
      orderId,
      transactionId,
      apiOperation,
      create: () => newOrder(lost),
      noOrder: () => new Error('a lost transaction creates its order'),
      decide: (order, at) => {
        const decided = decideOnOrder(order, lost, at, targets);
        if ('replay' in decided) {
          return decided;
        }
        const event = { merchantId, orderId, transactionId, apiOperation, notificationUrl: order.order.notificationUrl, body: decided.body, recordedAt: at };
        return {
          ...decided,
          alongside: async (manager) => {
            notified = (await this.events.recordedFromAcquirer?.(manager, event)) ?? false;
          },
        };
      },
    });
    const about = { merchantId, orderId, transactionId, apiOperation, type: lost.type, gatewayCode: lost.gatewayCode };
    if (recorded.replayed) {
      this.logger.info(about, 'lost transaction already recorded: nothing written');
      return { status: 'UNCHANGED', body: recorded.body, notified: false };
    }
    // The acquirer's reference identifies the transaction at the acquirer; no card data is logged.
    this.logger.info({ ...about, acquirerTransactionId: lost.acquirer.transactionId, notified }, 'transaction recorded from the acquirer\'s records');
    return { status: 'RECORDED', body: recorded.body, notified };
  }

  /** The order as begin reads it for the record's operation, with the stored responses of what the record may act on. */
  private async read(lost: LostTransaction): Promise<{ order: LockedOrder | null; targets: TargetResponses }> {
    const { merchantId, orderId, transactionId, apiOperation } = lost;
    const types = LOST_TARGET_TYPES[lost.type];
    if (types.length === 0) {
      return { order: await this.ledger.findForBegin(merchantId, orderId, transactionId, apiOperation), targets: NO_TARGETS };
    }
    const found = await this.ledger.findForBeginWithTargets(merchantId, orderId, transactionId, apiOperation, { types, transactionId: lost.targetTransactionId });
    return found ? { order: found.seen, targets: found.targetResponses } : { order: null, targets: NO_TARGETS };
  }
}

/**
 * The order as the ledger holds it (`read`; null: none) once the earlier records of the same
 * order are written as execute writes them: the order row each leaves, its transaction appended,
 * its stored response (the one the record's own id and operation is under, and in `targets`).
 */
function withEarlierRecords(read: LockedOrder | null, writes: readonly LedgerWrite[], lost: LostTransaction, targets: Map<string, JsonObject>): LockedOrder | null {
  return writes.reduce<LockedOrder | null>((view, write) => {
    const { transaction, response } = write;
    targets.set(transaction.transactionId, response.body);
    const row: TransactionRow = { ...transaction, sequence: write.sequence, createdAt: write.at, updatedAt: write.at };
    const own = transaction.transactionId === lost.transactionId && response.apiOperation === lost.apiOperation;
    const order: OrderRow = { ...write.order, createdAt: view?.order.createdAt ?? write.at };
    return {
      order,
      contents: {
        transactions: [...(view?.contents.transactions ?? []), row],
        stored: own ? { requestHash: response.requestHash, body: response.body } : (view?.contents.stored ?? null),
      },
    };
  }, read);
}

/**
 * The record on an existing order: the transaction appended as its operation's approval (or
 * decline) records it, against the target its operation's rules find (lostTarget), the order's
 * totals and status derived again under the ledger's rules (which refuse it with their 400 if it
 * broke one, the Excessive Refund privilege held only when the record states it), its own fields
 * and fencing token kept. The
 * same record already there is the answer; another transaction under its id is a conflict.
 */
function decideOnOrder({ order: row, contents }: LockedOrder, lost: LostTransaction, at: Date, targets: TargetResponses): OrderRecord {
  const existing = contents.transactions.find((t) => t.transactionId === lost.transactionId);
  if (existing) {
    const stored = contents.stored?.body;
    if (stored && sameRecord(existing, stored, lost)) {
      return { replay: stored };
    }
    throw conflict(lost, existing);
  }
  if (row.currency !== lost.amount.currency) {
    throw currencyConflict(lost, row);
  }
  const target = lostTarget(lost, orderView(snapshotOf(row), contents.transactions));
  const state = derivedState(row.currency, contents.transactions.map(entryOfRow), entryOfLost(lost, target), lost.excessiveRefund === true);
  // An authorisation or payment sets the order's amount, as its request does; what acts on an earlier transaction leaves it.
  const amount = actsOnEarlier(lost.type) ? Money.of(row.amount, row.currency) : lost.amount;
  const order: OrderSnapshot = { ...state, id: row.orderId, currency: row.currency, amount, createdAt: row.createdAt, updatedAt: at };
  const sequence = row.operationCount + 1;
  const fields = { merchantId: row.merchantId, details: row.details, notificationUrl: row.notificationUrl, fence: BigInt(row.lastFencingToken), sequence, at };
  return written(lost, target, order, fields, at, targets);
}

/**
 * A new order opened by the lost transaction (an authorisation, a payment, or a standalone
 * refund; a capture or void needs the order of what it acts on and is refused), as the acquirer
 * processed it: created at its time, with no details and no notification URL (the merchant's
 * request was lost with them), and fencing token 0, below every token the edge's lock hands out.
 */
function newOrder(lost: LostTransaction): RecordWrite {
  lostTarget(lost, null);
  const at = lost.time;
  const currency = lost.amount.currency;
  const state = derivedState(currency, [], entryOfLost(lost, null), lost.excessiveRefund === true);
  const order: OrderSnapshot = { ...state, id: lost.orderId, currency, amount: lost.amount, createdAt: at, updatedAt: at };
  const fields = { merchantId: lost.merchantId, details: {}, notificationUrl: null, fence: 0n, sequence: 1, at };
  return { ...written(lost, null, order, fields, at, NO_TARGETS), alongside: null };
}

/**
 * The order's totals and status with the record appended, or the ledger's refusal naming the
 * record's field. The merchant's Excessive Refund privilege is the edge's, which this command
 * cannot read: a refund beyond what was captured is refused unless its record states the
 * privilege (`excessiveRefund`; backup-and-restore.md).
 */
function derivedState(currency: string, before: LedgerEntry[], entry: LedgerEntry, excessiveRefundAllowed: boolean) {
  try {
    return recordEntry(currency, before, entry, { excessiveRefundAllowed }).state;
  } catch (err) {
    throw asRecordField(err);
  }
}

function written(
  lost: LostTransaction,
  target: LedgerTransactionView | null,
  order: OrderSnapshot,
  fields: Parameters<typeof orderRowWrite>[1],
  at: Date,
  targets: TargetResponses,
): RecordWrite {
  const targetTransactionId = target?.id ?? null;
  const recorded: RecordedTransaction = {
    id: lost.transactionId,
    type: lost.type,
    amount: lost.amount,
    result: lost.result,
    gatewayCode: lost.gatewayCode,
    targetTransactionId,
  };
  const targetBody = targetTransactionId !== null ? (targets.get(targetTransactionId) ?? null) : null;
  const body = completeResponse(lostTransactionResponse(lost, targetBody), order, recorded, at);
  const write: LedgerWrite = {
    order: orderRowWrite(order, fields),
    transaction: {
      transactionId: lost.transactionId,
      apiOperation: lost.apiOperation,
      type: lost.type,
      amount: lost.amount.toFixed(),
      currency: lost.amount.currency,
      result: lost.result,
      gatewayCode: lost.gatewayCode,
      targetTransactionId,
      fundingType: 'CARD',
      taxAmount: null,
    },
    response: { apiOperation: lost.apiOperation, requestHash: RECORDED_WITHOUT_REQUEST, body },
    sequence: fields.sequence,
    at,
  };
  return { write, body, alongside: null };
}

function entryOfLost(lost: LostTransaction, target: LedgerTransactionView | null): LedgerEntry {
  return { id: lost.transactionId, type: lost.type, amount: lost.amount.toString(), result: lost.result, targetTransactionId: target?.id ?? null };
}
