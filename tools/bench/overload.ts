/**
 * The overload scenario's readings (`refund-overload`; docs/decisions/overload-behaviour.md,
 * recommendation 5): what each answer says, and what the ledger recorded for each request
 * afterwards. Pure apart from `readRefundLedger`, so the unit tests pin the classification and
 * the summary without a gateway.
 */
import { Client } from 'pg';
import { auditLedger } from '@gateway/testing';
import { percentiles } from './steady-load';
import type { SteadyAnswer, SteadyFailure } from './load';

/**
 * How a merchant must read an answer under overload:
 * - `success`: 201 with `result` SUCCESS;
 * - `busy-may-have-processed`: 503 SERVER_BUSY after the edge stopped waiting for the service
 *   (operation-deadline.md, "What the merchant sees"): the refund may still happen;
 * - `busy`: 503 SERVER_BUSY refused unprocessed (the edge's or a service's in-flight cap, an
 *   operation past its deadline): nothing was done;
 * - `other`: any other answer, a 503 outside the spec's error shape or without `Retry-After`
 *   included;
 * - `no-answer`: none within the client's timeout, or the connection failed.
 */
export type AnswerClass = 'success' | 'busy-may-have-processed' | 'busy' | 'other' | 'no-answer';
export const ANSWER_CLASSES: readonly AnswerClass[] = ['success', 'busy-may-have-processed', 'busy', 'other', 'no-answer'];

/**
 * The words that tell the two SERVER_BUSY explanations apart: the edge's
 * UNANSWERED_OPERATION_EXPLANATION has them, the plain "The gateway is busy. Please retry the
 * request." does not (the unit test holds the edge's text to them).
 */
export const MAY_HAVE_BEEN_PROCESSED = 'may still have been processed';

export function classifyAnswer(answer: SteadyAnswer | SteadyFailure): AnswerClass {
  if ('failed' in answer) {
    return 'no-answer';
  }
  const body = parsed(answer.body);
  if (answer.status === 201 && body?.result === 'SUCCESS') {
    return 'success';
  }
  const error = body?.error as { cause?: unknown; explanation?: unknown } | undefined;
  if (answer.status === 503 && body?.result === 'ERROR' && error?.cause === 'SERVER_BUSY' && typeof error.explanation === 'string' && answer.retryAfter) {
    return error.explanation.includes(MAY_HAVE_BEEN_PROCESSED) ? 'busy-may-have-processed' : 'busy';
  }
  return 'other';
}

function parsed(body: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Every request's class and, for the successes, latency from when it was due; kept per request number. */
export class OverloadAnswers {
  readonly classes = new Map<number, AnswerClass>();
  private readonly successLatencies: number[] = [];
  /** The first few answers classed `other`, for the report. */
  readonly otherSamples: string[] = [];
  /** Requests without an answer, by why (`timeout`, or the error's code). */
  readonly unanswered: Record<string, number> = {};

  record(n: number, answer: SteadyAnswer | SteadyFailure): void {
    const kind = classifyAnswer(answer);
    this.classes.set(n, kind);
    if (kind === 'success' && !('failed' in answer)) {
      this.successLatencies.push(answer.latencyMs);
    }
    if ('failed' in answer) {
      const why = answer.failed === 'timeout' ? `timeout (${answer.reason})` : answer.reason;
      this.unanswered[why] = (this.unanswered[why] ?? 0) + 1;
    } else if (kind === 'other' && this.otherSamples.length < 3) {
      this.otherSamples.push(`${answer.status} ${answer.body.slice(0, 160)}`);
    }
  }

  counts(): Record<AnswerClass, number> {
    const counts = Object.fromEntries(ANSWER_CLASSES.map((c) => [c, 0])) as Record<AnswerClass, number>;
    for (const kind of this.classes.values()) counts[kind] += 1;
    return counts;
  }

  successLatency(): { p50: number; p99: number } {
    const { p50, p99 } = percentiles(this.successLatencies);
    return { p50, p99 };
  }
}

/** What the overload scenario adds to its result. */
export interface OverloadFigures {
  /** Refunds asked per second. */
  rate: number;
  clientTimeoutMs: number;
  /** Configuration given to every distributed app for the run (`--env`). */
  env: Record<string, string>;
  answers: Record<AnswerClass, number>;
  /** The requests classed `no-answer`, by why. */
  unanswered: Record<string, number>;
  /** 201 SUCCESS per second of load. */
  goodput: number;
  successP50: number;
  successP99: number;
  /** Refusals counted by the gateway during the load: the edge's cap, order-transaction's cap, its deadline. */
  shed: { edge: number; service: number; pastDeadline: number };
  /** Seconds from the end of the load until the ledger held still. */
  drainSeconds: number;
  ledger: LedgerSummary;
  problems: string[];
}

/** A ledger result of a refund transaction, or that none was recorded. */
export type Recorded = 'SUCCESS' | 'FAILURE' | 'PENDING' | 'UNKNOWN' | 'not recorded';
const RECORDED: readonly Recorded[] = ['SUCCESS', 'FAILURE', 'PENDING', 'UNKNOWN', 'not recorded'];

/** One scenario order as the ledger holds it after the backlog drained (money compared in SQL, not here). */
export interface OrderInLedger {
  orderId: string;
  /** The request's refund transaction's result; null: not recorded. */
  refundResult: string | null;
  /** Whether that transaction has its stored response (the replay a retry would get). */
  refundStored: boolean;
  /** Refunds SUCCESS, PENDING and UNKNOWN together above the order's captured amount. */
  overCaptured: boolean;
  /** `total_refunded_amount` differs from the sum of its SUCCESS refunds. */
  totalMismatch: boolean;
}

export interface LedgerSummary {
  /** Per answer class: how many requests got it, and what the ledger recorded for them. */
  byAnswer: Record<AnswerClass, Record<Recorded, number>>;
  pendingLeft: number;
  unknownLeft: number;
  overCapturedOrders: number;
  totalMismatchOrders: number;
  /** Refund transactions without their stored response. */
  withoutStoredResponse: number;
  /** Orders of the scenario the ledger did not hold at all (the seeding failed them). */
  ordersMissing: number;
}

/**
 * Joins each request's answer (`classes`, by request number) with its order's row
 * (`orderOf(n)`): one request per order, so an order's refund is its request's.
 */
export function summarizeLedger(classes: ReadonlyMap<number, AnswerClass>, orderOf: (n: number) => string, orders: readonly OrderInLedger[]): LedgerSummary {
  const byOrder = new Map(orders.map((o) => [o.orderId, o]));
  const byAnswer = Object.fromEntries(ANSWER_CLASSES.map((c) => [c, Object.fromEntries(RECORDED.map((r) => [r, 0]))])) as LedgerSummary['byAnswer'];
  let ordersMissing = 0;
  for (const [n, kind] of classes) {
    const order = byOrder.get(orderOf(n));
    if (!order) {
      ordersMissing += 1;
      continue;
    }
    const result = order.refundResult === null ? 'not recorded' : (order.refundResult as Recorded);
    byAnswer[kind][RECORDED.includes(result) ? result : 'not recorded'] += 1;
  }
  const count = (test: (o: OrderInLedger) => boolean) => orders.filter(test).length;
  return {
    byAnswer,
    pendingLeft: count((o) => o.refundResult === 'PENDING'),
    unknownLeft: count((o) => o.refundResult === 'UNKNOWN'),
    overCapturedOrders: count((o) => o.overCaptured),
    totalMismatchOrders: count((o) => o.totalMismatch),
    withoutStoredResponse: count((o) => o.refundResult !== null && !o.refundStored),
    ordersMissing,
  };
}

/** What makes an overload run fail `--check`: a wrong answer, a request unanswered, or money state the ledger must never hold. */
export function overloadProblems(counts: Record<AnswerClass, number>, ledger: LedgerSummary): string[] {
  const successNotRecorded = ledger.byAnswer.success['not recorded'] + ledger.byAnswer.success.FAILURE + ledger.byAnswer.success.PENDING + ledger.byAnswer.success.UNKNOWN;
  // The plain explanation promises nothing was done (operation-deadline.md): a refund recorded after it is a lie to the merchant.
  const busyButRecorded = ledger.byAnswer.busy.SUCCESS + ledger.byAnswer.busy.FAILURE + ledger.byAnswer.busy.PENDING + ledger.byAnswer.busy.UNKNOWN;
  return [
    counts.other > 0 ? `${counts.other} answers neither 201 SUCCESS nor 503 SERVER_BUSY with Retry-After` : '',
    counts['no-answer'] > 0 ? `${counts['no-answer']} requests without an answer (none within the client's timeout, or the connection failed)` : '',
    successNotRecorded > 0 ? `${successNotRecorded} refunds answered 201 SUCCESS not recorded SUCCESS` : '',
    busyButRecorded > 0 ? `${busyButRecorded} refunds answered 503 with the plain explanation (nothing done) recorded all the same` : '',
    ledger.pendingLeft > 0 ? `${ledger.pendingLeft} refunds left PENDING` : '',
    ledger.overCapturedOrders > 0 ? `${ledger.overCapturedOrders} orders refunded beyond their captured amount` : '',
    ledger.totalMismatchOrders > 0 ? `${ledger.totalMismatchOrders} orders whose total refunded differs from their SUCCESS refunds` : '',
    ledger.withoutStoredResponse > 0 ? `${ledger.withoutStoredResponse} refunds without their stored response` : '',
    ledger.ordersMissing > 0 ? `${ledger.ordersMissing} orders missing from the ledger` : '',
  ].filter(Boolean);
}

/**
 * The scenario's orders in the ledger (`auditLedger`, shared with the e2e failure drill: the
 * money compared in SQL on numeric columns), read with the run database's admin role: each
 * order's refund under `transactionId`, and the order's money checks. A second refund on an order
 * (there should be none) counts in the money checks all the same.
 */
export async function readRefundLedger(databaseUrl: string, merchantId: string, orderIds: readonly string[], transactionId: string): Promise<OrderInLedger[]> {
  return (await auditLedger(databaseUrl, merchantId, orderIds)).map((order) => {
    const mine = order.transactions.find((t) => t.transactionId === transactionId);
    return {
      orderId: order.orderId,
      refundResult: mine?.result ?? null,
      refundStored: mine?.stored ?? false,
      overCaptured: order.overRefunded,
      totalMismatch: order.totalsMismatch.includes('refunded'),
    };
  });
}

/** PENDING refunds and refund rows of the scenario's orders now: the backlog has drained once they stop changing. */
export async function ledgerProgress(databaseUrl: string, merchantId: string, orderIds: readonly string[]): Promise<{ refunds: number; pending: number }> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ refunds: string; pending: string }>(
      `SELECT count(*) AS refunds, count(*) FILTER (WHERE result = 'PENDING') AS pending
         FROM order_transaction.transactions
        WHERE merchant_id = $1 AND order_id = ANY($2::varchar[]) AND type = 'REFUND'`,
      [merchantId, orderIds],
    );
    return { refunds: Number(rows[0].refunds), pending: Number(rows[0].pending) };
  } finally {
    await client.end();
  }
}
