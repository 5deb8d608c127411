import { Client } from 'pg';

/** One transaction of an audited order, as the ledger holds it. */
export interface AuditedTransaction {
  transactionId: string;
  type: string;
  result: string;
  /** Whether its creating operation's response is stored (the replay a retry gets). */
  stored: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * One order's money checks, compared in SQL on the ledger's numeric columns (never JS numbers).
 * Each flag is a state the ledger must never hold, whatever failed while it was written.
 */
export interface OrderAudit {
  orderId: string;
  /** Refunds that moved or may still move money (SUCCESS, PENDING, UNKNOWN) above the order's captured total. */
  overRefunded: boolean;
  /** Captures that moved or may still move money above what the order's authorisations hold. */
  overCaptured: boolean;
  /** The order's totals that differ from the sums of its SUCCESS transactions (deriveTotals' rules). */
  totalsMismatch: ('authorized' | 'captured' | 'refunded')[];
  transactions: AuditedTransaction[];
}

/**
 * The ledger's own view of `orderIds` of a merchant (order-transaction's schema, read with a role
 * that can: the run database's admin, or order-transaction's own): every transaction, and the
 * order's money checks. Shared by the benchmark's overload scenario and the e2e failure drill so
 * that both check the money the same way.
 */
export async function auditLedger(databaseUrl: string, merchantId: string, orderIds: readonly string[]): Promise<OrderAudit[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{
      order_id: string;
      over_refunded: boolean;
      over_captured: boolean;
      authorized_mismatch: boolean;
      captured_mismatch: boolean;
      refunded_mismatch: boolean;
      transactions: { transactionId: string; type: string; result: string; stored: boolean; createdAt: string; updatedAt: string }[] | null;
    }>(
      `WITH t AS (
         SELECT t.*,
                EXISTS (SELECT 1 FROM order_transaction.operation_responses r
                         WHERE r.merchant_id = t.merchant_id AND r.order_id = t.order_id AND r.transaction_id = t.transaction_id) AS stored
           FROM order_transaction.transactions t
          WHERE t.merchant_id = $1 AND t.order_id = ANY($2::varchar[])
       )
       SELECT o.order_id,
              COALESCE(sum(t.amount) FILTER (WHERE t.type = 'REFUND' AND t.result IN ('SUCCESS', 'PENDING', 'UNKNOWN')), 0)
                - COALESCE(sum(t.amount) FILTER (WHERE t.type = 'VOID_REFUND' AND t.result = 'SUCCESS'), 0)
                > o.total_captured_amount AS over_refunded,
              COALESCE(sum(t.amount) FILTER (WHERE t.type = 'CAPTURE' AND t.result IN ('SUCCESS', 'PENDING', 'UNKNOWN')), 0)
                - COALESCE(sum(t.amount) FILTER (WHERE t.type = 'VOID_CAPTURE' AND t.result = 'SUCCESS'), 0)
                > COALESCE(sum(t.amount) FILTER (WHERE t.type IN ('AUTHORIZATION', 'AUTHORIZATION_UPDATE') AND t.result = 'SUCCESS'), 0)
                  - COALESCE(sum(t.amount) FILTER (WHERE t.type = 'VOID_AUTHORIZATION' AND t.result = 'SUCCESS'), 0) AS over_captured,
              COALESCE(sum(t.amount) FILTER (WHERE t.type IN ('AUTHORIZATION', 'AUTHORIZATION_UPDATE', 'PAYMENT') AND t.result = 'SUCCESS'), 0)
                - COALESCE(sum(t.amount) FILTER (WHERE t.type IN ('VOID_AUTHORIZATION', 'VOID_PAYMENT') AND t.result = 'SUCCESS'), 0)
                <> o.total_authorized_amount AS authorized_mismatch,
              COALESCE(sum(t.amount) FILTER (WHERE t.type IN ('CAPTURE', 'PAYMENT') AND t.result = 'SUCCESS'), 0)
                - COALESCE(sum(t.amount) FILTER (WHERE t.type IN ('VOID_CAPTURE', 'VOID_PAYMENT') AND t.result = 'SUCCESS'), 0)
                <> o.total_captured_amount AS captured_mismatch,
              COALESCE(sum(t.amount) FILTER (WHERE t.type = 'REFUND' AND t.result = 'SUCCESS'), 0)
                - COALESCE(sum(t.amount) FILTER (WHERE t.type = 'VOID_REFUND' AND t.result = 'SUCCESS'), 0)
                <> o.total_refunded_amount AS refunded_mismatch,
              json_agg(json_build_object('transactionId', t.transaction_id, 'type', t.type, 'result', t.result, 'stored', t.stored,
                                         'createdAt', t.created_at, 'updatedAt', t.updated_at)
                       ORDER BY t.sequence) FILTER (WHERE t.transaction_id IS NOT NULL) AS transactions
         FROM order_transaction.orders o
         LEFT JOIN t ON t.merchant_id = o.merchant_id AND t.order_id = o.order_id
        WHERE o.merchant_id = $1 AND o.order_id = ANY($2::varchar[])
        GROUP BY o.merchant_id, o.order_id, o.total_authorized_amount, o.total_captured_amount, o.total_refunded_amount`,
      [merchantId, orderIds],
    );
    return rows.map((r) => ({
      orderId: r.order_id,
      overRefunded: r.over_refunded,
      overCaptured: r.over_captured,
      totalsMismatch: [
        ...(r.authorized_mismatch ? ['authorized' as const] : []),
        ...(r.captured_mismatch ? ['captured' as const] : []),
        ...(r.refunded_mismatch ? ['refunded' as const] : []),
      ],
      transactions: (r.transactions ?? []).map((t) => ({ ...t, createdAt: new Date(t.createdAt), updatedAt: new Date(t.updatedAt) })),
    }));
  } finally {
    await client.end();
  }
}
