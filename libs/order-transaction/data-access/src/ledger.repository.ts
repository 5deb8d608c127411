import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { JsonObject } from '@gateway/contracts';
import { inTransaction, onConnection, PreparedStatement } from '@gateway/platform';
import { DataSource, EntityManager } from 'typeorm';
import {
  LedgerWrite,
  LockedOrder,
  OrderContents,
  OrderRow,
  ReservedAnnouncement,
  SeenOrder,
  SeenOrderWithTargets,
  StoredResponse,
  TargetQuery,
  TransactionRow,
} from './ledger-rows';

const ORDER_COLUMNS = `
  o.merchant_id AS "merchantId", o.order_id AS "orderId", o.currency, o.amount::text AS amount, o.status,
  o.total_authorized_amount::text AS "totalAuthorizedAmount", o.total_captured_amount::text AS "totalCapturedAmount",
  o.total_refunded_amount::text AS "totalRefundedAmount", o.details, o.notification_url AS "notificationUrl",
  o.last_fencing_token::text AS "lastFencingToken", o.operation_count AS "operationCount",
  o.created_at AS "createdAt", o.updated_at AS "updatedAt"`;

/** The order's transactions as one JSON array (amounts as text: JSON numbers would round). */
const TRANSACTIONS_OF_ORDER = `
  COALESCE((
    SELECT json_agg(json_build_object(
      'transactionId', t.transaction_id, 'sequence', t.sequence, 'apiOperation', t.api_operation,
      'type', t.type, 'amount', t.amount::text, 'currency', t.currency, 'result', t.result,
      'gatewayCode', t.gateway_code, 'targetTransactionId', t.target_transaction_id,
      'fundingType', t.funding_type, 'taxAmount', t.tax_amount::text,
      'createdAt', t.created_at, 'updatedAt', t.updated_at
    ) ORDER BY t.sequence)
    FROM order_transaction.transactions t
    WHERE t.merchant_id = o.merchant_id AND t.order_id = o.order_id
  ), '[]'::json)`;

const STORED_RESPONSE = `
  (SELECT json_build_object('requestHash', r.request_hash, 'body', r.body)
     FROM order_transaction.operation_responses r
    WHERE r.merchant_id = o.merchant_id AND r.order_id = o.order_id
      AND r.transaction_id = $3 AND r.api_operation = $4)`;

/** Begin's single read, and a record's without a lock: the order, its transactions, the stored response for ($3, $4), the row's version. */
const FIND_FOR_BEGIN = new PreparedStatement(
  `SELECT ${ORDER_COLUMNS}, ${TRANSACTIONS_OF_ORDER} AS transactions, ${STORED_RESPONSE} AS stored,
          o.xmin::text AS version
     FROM order_transaction.orders o
    WHERE o.merchant_id = $1 AND o.order_id = $2`,
);

/** Joins the latest stored response (`latest.body`) of the transaction `t`. */
const LATEST_RESPONSE_OF_T = `
  JOIN LATERAL (
    SELECT r.body FROM order_transaction.operation_responses r
     WHERE r.merchant_id = t.merchant_id AND r.order_id = t.order_id AND r.transaction_id = t.transaction_id
     ORDER BY r.sequence DESC LIMIT 1
  ) latest ON true`;

/**
 * The latest stored response of each of the order's successful transactions of the types in
 * $5, or only of $6 when it is not null: what an operation on an earlier transaction needs of
 * its target (TargetQuery), keyed by transaction id.
 */
const TARGET_RESPONSES = `
  COALESCE((
    SELECT json_object_agg(t.transaction_id, latest.body)
      FROM order_transaction.transactions t ${LATEST_RESPONSE_OF_T}
     WHERE t.merchant_id = o.merchant_id AND t.order_id = o.order_id
       AND t.result = 'SUCCESS' AND t.type = ANY($5::varchar[])
       AND ($6::varchar IS NULL OR t.transaction_id = $6)
  ), '{}'::json)`;

/** Begin's read for an operation on an earlier transaction: FIND_FOR_BEGIN and its targets' responses. */
const FIND_FOR_BEGIN_WITH_TARGETS = new PreparedStatement(
  `SELECT ${ORDER_COLUMNS}, ${TRANSACTIONS_OF_ORDER} AS transactions, ${STORED_RESPONSE} AS stored,
          o.xmin::text AS version, ${TARGET_RESPONSES} AS "targetResponses"
     FROM order_transaction.orders o
    WHERE o.merchant_id = $1 AND o.order_id = $2`,
);

/**
 * GET of an order in one statement, so one snapshot: the order row and the latest stored
 * response of each of its transactions, in transaction order. Two statements could put a write
 * between them: totals and status of one state over the transactions of another.
 */
const FIND_ORDER_WITH_RESPONSES = new PreparedStatement(
  `SELECT ${ORDER_COLUMNS},
          COALESCE((
            SELECT json_agg(latest.body ORDER BY t.sequence)
              FROM order_transaction.transactions t ${LATEST_RESPONSE_OF_T}
             WHERE t.merchant_id = o.merchant_id AND t.order_id = o.order_id
          ), '[]'::json) AS "latestBodies"
     FROM order_transaction.orders o
    WHERE o.merchant_id = $1 AND o.order_id = $2`,
);

const FIND_TRANSACTION_RESPONSE = new PreparedStatement(
  `SELECT ${ORDER_COLUMNS}, latest.body AS "latestBody"
     FROM order_transaction.orders o
     LEFT JOIN LATERAL (
       SELECT r.body FROM order_transaction.operation_responses r
        WHERE r.merchant_id = o.merchant_id AND r.order_id = o.order_id AND r.transaction_id = $3
        ORDER BY r.sequence DESC LIMIT 1
     ) latest ON true
    WHERE o.merchant_id = $1 AND o.order_id = $2`,
);

const OPERATION_OF_TRANSACTION = new PreparedStatement(
  `SELECT t.api_operation AS "apiOperation" FROM order_transaction.transactions t
    WHERE t.merchant_id = $1 AND t.order_id = $2 AND t.transaction_id = $3`,
);

/** What a resolution reads of the transaction before it decides (LedgerRepository.openTransactionOf). */
const OPEN_TRANSACTION = new PreparedStatement(
  `SELECT t.api_operation AS "apiOperation", t.announcement FROM order_transaction.transactions t
    WHERE t.merchant_id = $1 AND t.order_id = $2 AND t.transaction_id = $3`,
);

/** The lock, the contents and whether they are current (LedgerWriter.lockOrder). */
const LOCK_ORDER = new PreparedStatement(
  `SELECT ${ORDER_COLUMNS}, ${TRANSACTIONS_OF_ORDER} AS transactions, ${STORED_RESPONSE} AS stored,
          o.xmin = (SELECT s.xmin FROM order_transaction.orders s
                     WHERE s.merchant_id = o.merchant_id AND s.order_id = o.order_id) AS "snapshotCurrent"
     FROM order_transaction.orders o
    WHERE o.merchant_id = $1 AND o.order_id = $2
      FOR UPDATE OF o`,
);

const READ_CONTENTS = new PreparedStatement(
  `SELECT ${TRANSACTIONS_OF_ORDER} AS transactions, ${STORED_RESPONSE} AS stored
     FROM order_transaction.orders o
    WHERE o.merchant_id = $1 AND o.order_id = $2`,
);

/**
 * A new order, its first transaction and their stored response, each written only if the one
 * before it was (the order's insert does nothing when the order exists: then nothing is written
 * and no row returned). $1..$11 the order (orderValues), $12 the time, $13..$23 the transaction
 * and response (transactionAndResponseValues), $24 the transaction's tax amount, $25 its
 * announcement (ReservedAnnouncement, or null).
 */
const INSERT_NEW_ORDER = new PreparedStatement(
  `WITH new_order AS (
     INSERT INTO order_transaction.orders (merchant_id, order_id, currency, amount, status,
       total_authorized_amount, total_captured_amount, total_refunded_amount, details,
       notification_url, last_fencing_token, operation_count, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, 1, $12, $12)
     ON CONFLICT (merchant_id, order_id) DO NOTHING
     RETURNING merchant_id, order_id, xmin::text AS version
   ), new_transaction AS (
     INSERT INTO order_transaction.transactions (merchant_id, order_id, transaction_id, sequence,
       api_operation, type, amount, currency, result, gateway_code, target_transaction_id,
       funding_type, tax_amount, announcement, created_at, updated_at)
     SELECT merchant_id, order_id, $13, 1, $14, $15, $16::numeric, $17, $18, $19, $20, $21,
       $24::numeric, $25::jsonb, $12::timestamptz, $12::timestamptz
       FROM new_order
     RETURNING merchant_id, order_id, transaction_id
   )
   INSERT INTO order_transaction.operation_responses (merchant_id, order_id, transaction_id,
     api_operation, sequence, request_hash, body, created_at)
   SELECT merchant_id, order_id, transaction_id, $14, 1, $22, $23::jsonb, $12::timestamptz
     FROM new_transaction
   RETURNING (SELECT version FROM new_order)`,
);

/**
 * The statement that applies a record to an existing order: the order row updated, the
 * transaction inserted or updated in place (an UPDATE keeps its sequence, creating operation and
 * creation time), its response stored; the order is again one the payer personal-data retention
 * has not stripped (`personal_data_stripped_at`, NULL already but after a retention's strip, so
 * the update stays HOT). $1..$23 as INSERT_NEW_ORDER's, $24 the order's operation
 * count after the record (numbers the new rows), $25 the tax amount, $26 the announcement
 * (ReservedAnnouncement or null: an update replaces it too, so a completion or a resolution uses
 * it up). `replacingResponse`: the response stored for the same operation is replaced.
 * `ifVersion`: the order row is written only while it is still version $27 (nothing else is
 * written otherwise).
 */
function applyToOrderStatement({ replacingResponse, ifVersion }: { replacingResponse: boolean; ifVersion: boolean }): PreparedStatement {
  const replaceResponse = replacingResponse
    ? `ON CONFLICT (merchant_id, order_id, transaction_id, api_operation) DO UPDATE
          SET sequence = EXCLUDED.sequence, body = EXCLUDED.body`
    : '';
  return new PreparedStatement(
    `WITH updated_order AS (
       UPDATE order_transaction.orders
          SET currency = $3, amount = $4, status = $5, total_authorized_amount = $6,
              total_captured_amount = $7, total_refunded_amount = $8, details = $9::jsonb,
              notification_url = $10, last_fencing_token = $11, operation_count = $24,
              updated_at = $12, personal_data_stripped_at = NULL
        WHERE merchant_id = $1 AND order_id = $2${ifVersion ? ' AND xmin = $27::xid' : ''}
       RETURNING merchant_id, order_id, xmin::text AS version
     ), saved_transaction AS (
       INSERT INTO order_transaction.transactions (merchant_id, order_id, transaction_id, sequence,
         api_operation, type, amount, currency, result, gateway_code, target_transaction_id,
         funding_type, tax_amount, announcement, created_at, updated_at)
       SELECT merchant_id, order_id, $13, $24::integer, $14, $15, $16::numeric, $17, $18, $19, $20,
         $21, $25::numeric, $26::jsonb, $12::timestamptz, $12::timestamptz
         FROM updated_order
       ON CONFLICT (merchant_id, order_id, transaction_id) DO UPDATE
          SET type = EXCLUDED.type, amount = EXCLUDED.amount, currency = EXCLUDED.currency,
              result = EXCLUDED.result, gateway_code = EXCLUDED.gateway_code,
              target_transaction_id = EXCLUDED.target_transaction_id,
              funding_type = EXCLUDED.funding_type, tax_amount = EXCLUDED.tax_amount,
              announcement = EXCLUDED.announcement, updated_at = EXCLUDED.updated_at
       RETURNING merchant_id, order_id, transaction_id
     )
     INSERT INTO order_transaction.operation_responses (merchant_id, order_id, transaction_id,
       api_operation, sequence, request_hash, body, created_at)
     SELECT merchant_id, order_id, transaction_id, $14, $24::integer, $22, $23::jsonb, $12::timestamptz
       FROM saved_transaction
     ${replaceResponse}
     RETURNING (SELECT version FROM updated_order)`,
  );
}
const APPLY_TO_ORDER = {
  locked: applyToOrderStatement({ replacingResponse: false, ifVersion: false }),
  lockedReplacingResponse: applyToOrderStatement({ replacingResponse: true, ifVersion: false }),
  ifUnchanged: applyToOrderStatement({ replacingResponse: false, ifVersion: true }),
  ifUnchangedReplacingResponse: applyToOrderStatement({ replacingResponse: true, ifVersion: true }),
};

/** The reserved transaction $3 and its stored responses: the head of both release statements. */
const DELETE_RESERVED = `
  WITH deleted_responses AS (
     DELETE FROM order_transaction.operation_responses
      WHERE merchant_id = $1 AND order_id = $2 AND transaction_id = $3
   ), deleted_transaction AS (
     DELETE FROM order_transaction.transactions
      WHERE merchant_id = $1 AND order_id = $2 AND transaction_id = $3
   )`;

/**
 * A release on an order with other transactions: the reserved one goes, and every column the
 * reservation moved is put back in the same statement. Status, totals ($4..$7) and the fencing
 * token ($8) come from the caller; the operation count and last update are those of the
 * remaining records (every record writes a response numbered with the count it leaves, and its
 * transaction at the time it gives the order), read in this statement's snapshot, before its
 * own deletes.
 */
const RELEASE_RESTORING_ORDER = new PreparedStatement(
  `${DELETE_RESERVED}
   UPDATE order_transaction.orders
      SET status = $4, total_authorized_amount = $5, total_captured_amount = $6,
          total_refunded_amount = $7, last_fencing_token = $8,
          operation_count = (SELECT max(r.sequence) FROM order_transaction.operation_responses r
                              WHERE r.merchant_id = $1 AND r.order_id = $2 AND r.transaction_id <> $3),
          updated_at = (SELECT max(t.updated_at) FROM order_transaction.transactions t
                         WHERE t.merchant_id = $1 AND t.order_id = $2 AND t.transaction_id <> $3)
    WHERE merchant_id = $1 AND order_id = $2`,
);

/**
 * A release of the only transaction of the order it opened: the order goes with it. Should
 * another transaction exist after all, its foreign key refuses the statement.
 */
const RELEASE_WITH_ORDER = new PreparedStatement(
  `${DELETE_RESERVED}
   DELETE FROM order_transaction.orders WHERE merchant_id = $1 AND order_id = $2`,
);

type RawTransaction = Omit<TransactionRow, 'createdAt' | 'updatedAt'> & { createdAt: string; updatedAt: string };

/** What a write returns: the version it gave the order row. */
interface WrittenRow {
  version: string;
}

interface ContentsRow {
  transactions: RawTransaction[];
  stored: StoredResponse | null;
}

/**
 * The ledger's SQL. Every query is hand-written so each protocol step costs a known, small
 * number of round trips (begin is one read; a record is one read and one write conditioned on
 * the version read, or, when the order moved in between, one locking read and one write), and
 * sent as a prepared statement, planned once per connection.
 */
@Injectable()
export class LedgerRepository {
  private readonly manager: EntityManager;

  constructor(@InjectDataSource('order_transaction') private readonly dataSource: DataSource) {
    this.manager = dataSource.manager;
  }

  static over(dataSource: DataSource): LedgerRepository {
    return new LedgerRepository(dataSource);
  }

  /**
   * Begin's single read, also a record's when it does not lock: the order, its transactions,
   * the stored response for this operation, and the version of the row read.
   */
  async findForBegin(merchantId: string, orderId: string, transactionId: string, apiOperation: string): Promise<SeenOrder | null> {
    const rows = await FIND_FOR_BEGIN.rows<OrderRow & ContentsRow & { version: string }>(this.manager, [
      merchantId,
      orderId,
      transactionId,
      apiOperation,
    ]);
    return rows.length === 0 ? null : seenOrderOf(rows[0], { transactionId, apiOperation });
  }

  /**
   * findForBegin for an operation on an earlier transaction of the order (a REFUND, CAPTURE or
   * VOID), which also reads the stored responses of the transactions it may act on, in the
   * same statement: the operation needs its target's (the acquirer's reference, the card) and
   * would otherwise read it on its own once it has chosen the target.
   */
  async findForBeginWithTargets(
    merchantId: string,
    orderId: string,
    transactionId: string,
    apiOperation: string,
    targets: TargetQuery,
  ): Promise<SeenOrderWithTargets | null> {
    const rows = await FIND_FOR_BEGIN_WITH_TARGETS.rows<
      OrderRow & ContentsRow & { version: string; targetResponses: Record<string, JsonObject> }
    >(this.manager, [merchantId, orderId, transactionId, apiOperation, targets.types, targets.transactionId ?? null]);
    if (rows.length === 0) {
      return null;
    }
    const { targetResponses, ...row } = rows[0];
    return { seen: seenOrderOf(row, { transactionId, apiOperation }), targetResponses: new Map(Object.entries(targetResponses)) };
  }

  /**
   * The order and the stored response of each transaction's latest operation, in transaction
   * order, read together (one statement: the same committed state). Null: no such order.
   * `connected`: as for the retrieval reads below (`read`).
   */
  async findOrderWithResponses(
    merchantId: string,
    orderId: string,
    connected?: () => void,
  ): Promise<{ order: OrderRow; responses: JsonObject[] } | null> {
    const rows = await this.read(connected, (manager) =>
      FIND_ORDER_WITH_RESPONSES.rows<OrderRow & { latestBodies: JsonObject[] }>(manager, [merchantId, orderId]),
    );
    if (rows.length === 0) {
      return null;
    }
    const { latestBodies, ...order } = rows[0];
    return { order, responses: latestBodies };
  }

  /** The order and the stored response of the transaction's latest operation (null: no such transaction). */
  async findTransactionResponse(
    merchantId: string,
    orderId: string,
    transactionId: string,
    connected?: () => void,
  ): Promise<{ order: OrderRow; body: JsonObject | null } | null> {
    const rows = await this.read(connected, (manager) =>
      FIND_TRANSACTION_RESPONSE.rows<OrderRow & { latestBody: JsonObject | null }>(manager, [merchantId, orderId, transactionId]),
    );
    if (rows.length === 0) {
      return null;
    }
    const { latestBody, ...order } = rows[0];
    return { order, body: latestBody };
  }

  /**
   * The operation that created a transaction (its stored response is kept under it), null when
   * the order has no such transaction. It never changes once recorded.
   */
  async operationOf(merchantId: string, orderId: string, transactionId: string): Promise<string | null> {
    const rows = await OPERATION_OF_TRANSACTION.rows<{ apiOperation: string }>(this.manager, [merchantId, orderId, transactionId]);
    return rows[0]?.apiOperation ?? null;
  }

  /**
   * The operation that created the transaction, and the announcement its open outcome keeps
   * (ReservedAnnouncement; null when none: not announced, or the outcome already recorded). Null
   * when there is no such transaction. What a resolution (ResolveUnknown) reads first, in the
   * one statement that was operationOf's: the announcement is not among the contents every read
   * of an order carries, and only a write that records the outcome, which decides on a view where
   * it is still open, replaces it.
   */
  async openTransactionOf(
    merchantId: string,
    orderId: string,
    transactionId: string,
  ): Promise<{ apiOperation: string; announcement: ReservedAnnouncement | null } | null> {
    const rows = await OPEN_TRANSACTION.rows<{ apiOperation: string; announcement: ReservedAnnouncement | null }>(this.manager, [merchantId, orderId, transactionId]);
    return rows[0] ?? null;
  }

  /**
   * A writer outside any transaction: each of its statements commits on its own when it
   * returns. Only for a record that is a single statement (a new order's insert, a write
   * conditioned on the order's version).
   */
  autocommitWriter(): LedgerWriter {
    return new LedgerWriter(this.manager);
  }

  /**
   * autocommitWriter's writes on one connection of the pool, held from before `work`'s first
   * statement to after its last; `connected` may refuse once it is held (platform's onConnection).
   */
  onConnection<T>(connected: () => void, work: (writer: LedgerWriter) => Promise<T>): Promise<T> {
    return onConnection(this.dataSource, connected, (manager) => work(new LedgerWriter(manager)));
  }

  /**
   * A read's one statement: on a pooled connection as any read, or, with `connected`, on one
   * held from before the statement, `connected` called once it is held (a retrieval's deadline:
   * a read that waited past it in the pool's queue is refused before its statement).
   */
  private read<T>(connected: (() => void) | undefined, statement: (manager: EntityManager) => Promise<T>): Promise<T> {
    return connected ? onConnection(this.dataSource, connected, statement) : statement(this.manager);
  }

  /**
   * Runs `work` in one database transaction (READ COMMITTED; the order row lock serialises),
   * once more if a statement's plan had gone stale under a migration (inTransaction).
   */
  transaction<T>(work: (writer: LedgerWriter) => Promise<T>): Promise<T> {
    return inTransaction(this.dataSource, (manager) => work(new LedgerWriter(manager)));
  }
}

/** The ledger's statements inside a record's database transaction. */
export class LedgerWriter {
  constructor(readonly manager: EntityManager) {}

  /**
   * Locks the order row until commit, and reads its transactions and the response stored for
   * this operation. Under READ COMMITTED a statement that waited for the lock returns the row
   * as its previous holder committed it, but reads every other table with the snapshot it
   * started with, so the transactions it reads could miss that holder's write. The statement
   * therefore also says whether the row it locked is the version its own snapshot sees (the
   * same `xmin`); when it is not, the contents are read again by a statement of their own.
   * One round trip when nobody held the order (the rule: the edge's lock serialises requests
   * per order), two after a wait. Sound because every ledger write to an order's transactions
   * or responses also updates its order row, in the same database transaction.
   */
  async lockOrder(merchantId: string, orderId: string, transactionId: string, apiOperation: string): Promise<LockedOrder | null> {
    const rows = await LOCK_ORDER.rows<OrderRow & ContentsRow & { snapshotCurrent: boolean }>(this.manager, [
      merchantId,
      orderId,
      transactionId,
      apiOperation,
    ]);
    if (rows.length === 0) {
      return null;
    }
    const { transactions, stored, snapshotCurrent, ...order } = rows[0];
    const contents = snapshotCurrent
      ? { transactions: transactions.map(toTransactionRow), stored }
      : await this.readContents(merchantId, orderId, transactionId, apiOperation);
    return { order, contents };
  }

  /** The order's transactions and stored response, read by a statement of their own (after a lock wait). */
  private async readContents(
    merchantId: string,
    orderId: string,
    transactionId: string,
    apiOperation: string,
  ): Promise<OrderContents> {
    const [row] = await READ_CONTENTS.rows<ContentsRow>(this.manager, [merchantId, orderId, transactionId, apiOperation]);
    return { transactions: row.transactions.map(toTransactionRow), stored: row.stored };
  }

  /**
   * A new order with its first transaction and stored response, in one statement, answering
   * the order as written. Null when the order exists after all (created concurrently):
   * nothing was written then, and the caller continues as for an existing order.
   */
  async insertNewOrder(write: LedgerWrite): Promise<SeenOrder | null> {
    const [row] = await INSERT_NEW_ORDER.rows<WrittenRow>(this.manager, [
      ...orderValues(write.order),
      write.at,
      ...transactionAndResponseValues(write),
      write.transaction.taxAmount,
      announcementValue(write),
    ]);
    return row ? orderAfter(null, write, row.version) : null;
  }

  /**
   * After lockOrder: the order's new state, the transaction (inserted, or updated keeping its
   * sequence, creating operation and creation time) and the stored response, in one statement.
   * The response is inserted, or with `response.replaces` replaces the one stored for the same
   * operation (a reservation's PENDING body, once its outcome is known). Answers the order as
   * written.
   */
  async applyToOrder(write: LedgerWrite, locked: LockedOrder): Promise<SeenOrder> {
    const [row] = await this.apply(write);
    if (!row) {
      // Only possible if the locked row vanished.
      throw new Error(`ledger write on ${write.order.merchantId}/${write.order.orderId} wrote nothing`);
    }
    return orderAfter(locked, write, row.version);
  }

  /**
   * Without a lock: applyToOrder's write, made only if the order row is still the version
   * `seen` read, in the same single statement; answers the order as written. A record
   * committed since (or one holding the row, once it commits) has moved the version on: then
   * nothing is written, and the answer is null.
   */
  async applyToOrderIfUnchanged(write: LedgerWrite, seen: SeenOrder): Promise<SeenOrder | null> {
    const [row] = await this.apply(write, seen.version);
    return row ? orderAfter(seen, write, row.version) : null;
  }

  private apply(write: LedgerWrite, version?: string): Promise<WrittenRow[]> {
    const replacing = write.response.replaces === true;
    const statement =
      version === undefined
        ? replacing ? APPLY_TO_ORDER.lockedReplacingResponse : APPLY_TO_ORDER.locked
        : replacing ? APPLY_TO_ORDER.ifUnchangedReplacingResponse : APPLY_TO_ORDER.ifUnchanged;
    return statement.rows<WrittenRow>(this.manager, [
      ...orderValues(write.order),
      write.at,
      ...transactionAndResponseValues(write),
      write.sequence,
      write.transaction.taxAmount,
      announcementValue(write),
      ...(version === undefined ? [] : [version]),
    ]);
  }

  /**
   * After lockOrder: removes a reserved transaction and its stored response, for an operation
   * released before any money moved (docs/decisions/refund-reservation.md), and puts the order
   * back as the remaining transactions leave it, in one statement. The only deletions the
   * ledger makes. `state` null: the reservation opened the order and was its only transaction,
   * so the order is deleted with it.
   */
  async releaseTransaction(release: ReleasedTransaction, state: ReleasedOrderState | null): Promise<void> {
    const key = [release.merchantId, release.orderId, release.transactionId];
    if (state === null) {
      await RELEASE_WITH_ORDER.rowCount(this.manager, key);
      return;
    }
    await RELEASE_RESTORING_ORDER.rowCount(this.manager, [
      ...key,
      state.status,
      state.totalAuthorizedAmount,
      state.totalCapturedAmount,
      state.totalRefundedAmount,
      state.lastFencingToken,
    ]);
  }
}

/** The reserved transaction a release removes. */
export interface ReleasedTransaction {
  merchantId: string;
  orderId: string;
  transactionId: string;
}

/** What a release decides of the order left behind: its derived state and fencing token. */
export type ReleasedOrderState = Pick<
  OrderRow,
  'status' | 'totalAuthorizedAmount' | 'totalCapturedAmount' | 'totalRefundedAmount' | 'lastFencingToken'
>;

/**
 * The order as a write on `before` (null: none, a new order) left it, for the operation's
 * next record in this process: the row as written with the version the write gave it, the
 * transactions with the written one in place, as the statement writes it (an update keeps its
 * sequence, creating operation and creation time), and the response just stored for its
 * operation. The next record is still written only if the row keeps that version.
 */
function orderAfter(before: LockedOrder | null, write: LedgerWrite, version: string): SeenOrder {
  const { transaction, at } = write;
  // The announcement is not among the contents a read of the order carries (openTransactionOf reads it).
  const { apiOperation, announcement: _announcement, ...columns } = transaction;
  const transactions = before?.contents.transactions ?? [];
  const existing = transactions.find((row) => row.transactionId === transaction.transactionId);
  const written: TransactionRow = existing
    ? { ...existing, ...columns, updatedAt: at }
    : { ...columns, apiOperation, sequence: write.sequence, createdAt: at, updatedAt: at };
  return {
    order: { ...write.order, createdAt: before?.order.createdAt ?? at },
    contents: {
      transactions: existing ? transactions.map((row) => (row === existing ? written : row)) : [...transactions, written],
      stored: { requestHash: write.response.requestHash, body: write.response.body },
    },
    version,
    operation: { transactionId: transaction.transactionId, apiOperation: write.response.apiOperation },
  };
}

/** $13..$23 of both writes: the transaction, then the stored response. */
function transactionAndResponseValues({ transaction: t, response }: LedgerWrite): unknown[] {
  return [
    t.transactionId,
    response.apiOperation,
    t.type,
    t.amount,
    t.currency,
    t.result,
    t.gatewayCode,
    t.targetTransactionId,
    t.fundingType,
    response.requestHash,
    JSON.stringify(response.body),
  ];
}

/** The transaction's announcement as its jsonb parameter (null: none kept). */
function announcementValue({ transaction }: LedgerWrite): string | null {
  return transaction.announcement ? JSON.stringify(transaction.announcement) : null;
}

/** $1..$11 of both writes. */
function orderValues(order: LedgerWrite['order']): unknown[] {
  return [
    order.merchantId,
    order.orderId,
    order.currency,
    order.amount,
    order.status,
    order.totalAuthorizedAmount,
    order.totalCapturedAmount,
    order.totalRefundedAmount,
    JSON.stringify(order.details),
    order.notificationUrl,
    order.lastFencingToken,
  ];
}

function seenOrderOf(row: OrderRow & ContentsRow & { version: string }, operation: SeenOrder['operation']): SeenOrder {
  const { transactions, stored, version, ...order } = row;
  return { order, contents: { transactions: transactions.map(toTransactionRow), stored }, version, operation };
}

function toTransactionRow(raw: RawTransaction): TransactionRow {
  return { ...raw, createdAt: new Date(raw.createdAt), updatedAt: new Date(raw.updatedAt) };
}
