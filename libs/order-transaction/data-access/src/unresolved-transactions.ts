import type { DataSource } from 'typeorm';

/** A transaction whose outcome the ledger does not know for sure: what an operator reconciles. */
export interface UnresolvedTransaction {
  merchantId: string;
  orderId: string;
  transactionId: string;
  apiOperation: string;
  type: string;
  /** As stored (numeric(17,4) text); never a JS number. */
  amount: string;
  currency: string;
  /** PENDING (reserved, never completed or released) or UNKNOWN (the acquirer's answer was lost). */
  result: 'PENDING' | 'UNKNOWN';
  gatewayCode: string;
  /** When the ledger last wrote it. */
  since: Date;
}

export interface UnresolvedQuery {
  /** Only transactions the ledger has not written since this time. */
  before: Date;
  merchantId?: string;
  limit: number;
}

/**
 * The ledger's transactions left PENDING or UNKNOWN: a reservation whose completion or release
 * never landed (the database unreachable three times over), a call whose outcome nobody could
 * tell, a browser payment its payer or merchant never finished. They hold amounts against the
 * order's limits until someone finds out at the acquirer or provider what happened. An
 * operator's report, not a hot path: it scans the transactions table (no index is kept for it,
 * so the ledger's writes pay nothing), oldest first.
 */
export class UnresolvedTransactions {
  private constructor(private readonly dataSource: DataSource) {}

  static over(dataSource: DataSource): UnresolvedTransactions {
    return new UnresolvedTransactions(dataSource);
  }

  list(query: UnresolvedQuery): Promise<UnresolvedTransaction[]> {
    return this.dataSource.query(
      `SELECT merchant_id AS "merchantId", order_id AS "orderId", transaction_id AS "transactionId",
              api_operation AS "apiOperation", type, amount::text AS amount, currency, result,
              gateway_code AS "gatewayCode", updated_at AS since
         FROM order_transaction.transactions
        WHERE result IN ('PENDING', 'UNKNOWN') AND updated_at < $1 AND ($2::text IS NULL OR merchant_id = $2)
        ORDER BY updated_at
        LIMIT $3`,
      [query.before, query.merchantId ?? null, query.limit],
    );
  }
}
