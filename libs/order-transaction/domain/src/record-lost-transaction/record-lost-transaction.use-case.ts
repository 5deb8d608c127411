import { Inject, Injectable } from '@nestjs/common';
import type { JsonObject } from '@gateway/contracts';
import { LedgerRepository, LedgerWrite, LockedOrder, RECORDED_WITHOUT_REQUEST } from '@gateway/order-transaction/data-access';
import { APP_LOGGER, AppLogger } from '@gateway/platform';
import { LEDGER_EVENTS, LedgerEvents } from '../ledger-events/ledger-events';
import { completeResponse, RecordedTransaction } from '../ledger-response/complete-response';
import type { OrderSnapshot } from '../ledger-response/order-snapshot';
import { recordEntry } from '../order-state/record-entry';
import { entryOfRow, orderRowWrite } from '../record-operation/ledger-write';
import { OrderRecord, RecordOperation, RecordWrite } from '../record-operation/record-operation.use-case';
import { conflict, currencyConflict, LostTransaction, lostTransactionResponse, sameRecord } from './lost-transaction';

export interface RecordLostResult {
  /**
   * RECORDED: written now. UNCHANGED: the ledger already holds this transaction as the record
   * says (the command run again); nothing written. WOULD_RECORD: a dry run's answer.
   */
  status: 'RECORDED' | 'UNCHANGED' | 'WOULD_RECORD';
  /** The transaction's stored response as it stands (or would): what GET and the merchant's retry answer. */
  body: JsonObject;
  /** Whether a webhook notification was written with it (never on a dry run). */
  notified: boolean;
}

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
 * The transaction is stored as its operation's response (PAY, AUTHORIZE) under
 * RECORDED_WITHOUT_REQUEST: the merchant's retry of that operation with the same ids and amount
 * is answered from it (replayOf) and reaches no acquirer. Its totals and status are derived
 * under the ledger's rules, so captures, voids and refunds of it go through the normal path,
 * sent to the acquirer by the reference recorded.
 */
@Injectable()
export class RecordLostTransaction {
  constructor(
    private readonly ledger: LedgerRepository,
    private readonly records: RecordOperation,
    @Inject(LEDGER_EVENTS) private readonly events: LedgerEvents,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  /** What execute would do on the order as it is now; refuses as it would. Writes nothing. */
  async preview(lost: LostTransaction): Promise<RecordLostResult> {
    const seen = await this.ledger.findForBegin(lost.merchantId, lost.orderId, lost.transactionId, lost.apiOperation);
    const decided = seen ? decideOnOrder(seen, lost, new Date(Math.max(Date.now(), seen.order.updatedAt.getTime()))) : newOrder(lost);
    return 'replay' in decided ? { status: 'UNCHANGED', body: decided.replay, notified: false } : { status: 'WOULD_RECORD', body: decided.body, notified: false };
  }

  async execute(lost: LostTransaction): Promise<RecordLostResult> {
    const { merchantId, orderId, transactionId, apiOperation } = lost;
    let notified = false;
    const recorded = await this.records.recordDecided({
      merchantId,
      orderId,
      transactionId,
      apiOperation,
      create: () => newOrder(lost),
      noOrder: () => new Error('a lost transaction creates its order'),
      decide: (order, at) => {
        const decided = decideOnOrder(order, lost, at);
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
}

/**
 * The record on an existing order: the transaction appended as its operation's approval (or
 * decline) records it, the order's totals and status derived again under the ledger's rules
 * (which refuse it with their 400 if it broke one), its own fields and fencing token kept. The
 * same record already there is the answer; another transaction under its id is a conflict.
 */
function decideOnOrder({ order: row, contents }: LockedOrder, lost: LostTransaction, at: Date): OrderRecord {
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
  const { state } = recordEntry(row.currency, contents.transactions.map(entryOfRow), entryOfLost(lost), {
    // The merchant's Excessive Refund privilege is the edge's; an authorisation or payment is no refund.
    excessiveRefundAllowed: false,
  });
  const order: OrderSnapshot = { ...state, id: row.orderId, currency: row.currency, amount: lost.amount, createdAt: row.createdAt, updatedAt: at };
  const sequence = row.operationCount + 1;
  const fields = { merchantId: row.merchantId, details: row.details, notificationUrl: row.notificationUrl, fence: BigInt(row.lastFencingToken), sequence, at };
  return written(lost, order, fields, at);
}

/**
 * A new order opened by the lost transaction, as the acquirer processed it: created at its time,
 * with no details and no notification URL (the merchant's request was lost with them), and
 * fencing token 0, below every token the edge's lock hands out.
 */
function newOrder(lost: LostTransaction): RecordWrite {
  const at = lost.time;
  const currency = lost.amount.currency;
  const { state } = recordEntry(currency, [], entryOfLost(lost), { excessiveRefundAllowed: false });
  const order: OrderSnapshot = { ...state, id: lost.orderId, currency, amount: lost.amount, createdAt: at, updatedAt: at };
  const fields = { merchantId: lost.merchantId, details: {}, notificationUrl: null, fence: 0n, sequence: 1, at };
  return { ...written(lost, order, fields, at), alongside: null };
}

function written(lost: LostTransaction, order: OrderSnapshot, fields: Parameters<typeof orderRowWrite>[1], at: Date): RecordWrite {
  const recorded: RecordedTransaction = {
    id: lost.transactionId,
    type: lost.type,
    amount: lost.amount,
    result: lost.result,
    gatewayCode: lost.gatewayCode,
    targetTransactionId: null,
  };
  const body = completeResponse(lostTransactionResponse(lost), order, recorded, at);
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
      targetTransactionId: null,
      fundingType: 'CARD',
      taxAmount: null,
    },
    response: { apiOperation: lost.apiOperation, requestHash: RECORDED_WITHOUT_REQUEST, body },
    sequence: fields.sequence,
    at,
  };
  return { write, body, alongside: null };
}

function entryOfLost(lost: LostTransaction) {
  return { id: lost.transactionId, type: lost.type, amount: lost.amount.toString(), result: lost.result, targetTransactionId: null };
}
