import type {
  BrowserPaymentRow,
  PaymentChanges,
  PaymentState,
  ProviderCaptureRow,
  ProviderRefundRow,
  SimulatedCaptureRow,
  SimulatedPaymentRow,
  SimulatedPaymentStatus,
  SimulatedRefundRow,
  PaymentOperation,
} from '@gateway/browser-payment/data-access';
import type { ExpiredPayment, ExpiredPaymentsCursor } from '@gateway/contracts';
import { parseDecimal } from '@gateway/money';
import { SYSTEM_CLOCK, type Clock } from '../browser-payment.options';
import { expiryDue } from '../payment/journey';
import type { PaymentStore } from '../payment/payment-store';
import type { SimulatorStore } from '../providers/simulator/simulator-store';

function inState(payment: BrowserPaymentRow, expected: PaymentState): boolean {
  return payment.interactionStatus === expected.interactionStatus && payment.result === expected.result;
}

/** A copy as the database hands rows out: nothing shared with what the store keeps. */
function clone(row: BrowserPaymentRow): BrowserPaymentRow {
  return { ...structuredClone({ ...row, tokenHash: undefined }), tokenHash: Buffer.from(row.tokenHash) };
}

/** PaymentStore's contract in memory: conditional transitions, rolled back when `alongside` fails. */
export class InMemoryPaymentStore implements PaymentStore {
  /** The database's clock (the test bed's one clock unless a test sets another: a replica's clock skewed from it). */
  constructor(public databaseClock: Clock = SYSTEM_CLOCK) {}

  readonly payments = new Map<string, BrowserPaymentRow>();
  readonly refunds: ProviderRefundRow[] = [];
  readonly captures: ProviderCaptureRow[] = [];
  /** Execution leases by payment id (the repository keeps them on the row). */
  readonly leases = new Map<string, Date>();
  /** Fails the commit of the next transition to COMPLETED after `alongside` succeeded (the database lost between the two). */
  failNextCompletionCommit: Error | null = null;

  async saveInitiated(row: BrowserPaymentRow): Promise<boolean> {
    const existing = [...this.payments.values()].find(
      (p) => p.merchantId === row.merchantId && p.orderId === row.orderId && p.transactionId === row.transactionId,
    );
    if (existing && existing.interactionStatus !== 'INITIATED') {
      return false;
    }
    if (existing) {
      this.payments.delete(existing.id);
    }
    this.payments.set(row.id, clone(row));
    return true;
  }

  async findById(id: string): Promise<BrowserPaymentRow | null> {
    const found = this.payments.get(id);
    return found ? clone(found) : null;
  }

  async databaseNow(): Promise<Date> {
    return this.databaseClock.now();
  }

  async findExpired(now: Date, returnedBy: Date, limit: number, after?: ExpiredPaymentsCursor): Promise<ExpiredPayment[]> {
    const key = (expiresAt: Date | string, id: string) => `${new Date(expiresAt).toISOString()} ${id}`;
    return [...this.payments.values()]
      .filter((p) => expiryDue(p, now, now.getTime() - returnedBy.getTime()) && (!after || key(p.tokenExpiresAt, p.id) > key(after.tokenExpiresAt, after.paymentId)))
      .sort((a, b) => (key(a.tokenExpiresAt, a.id) < key(b.tokenExpiresAt, b.id) ? -1 : 1))
      .slice(0, limit)
      .map((p) => ({ paymentId: p.id, merchantId: p.merchantId, orderId: p.orderId, tokenExpiresAt: new Date(p.tokenExpiresAt).toISOString() }));
  }

  async findByTokenHash(tokenHash: Buffer): Promise<BrowserPaymentRow | null> {
    const found = [...this.payments.values()].find((p) => p.tokenHash.equals(tokenHash));
    return found ? clone(found) : null;
  }

  async findByTransaction(merchantId: string, orderId: string, transactionId: string): Promise<BrowserPaymentRow | null> {
    const found = [...this.payments.values()].find(
      (p) => p.merchantId === merchantId && p.orderId === orderId && p.transactionId === transactionId,
    );
    return found ? clone(found) : null;
  }

  async transition<T>(
    id: string,
    expected: PaymentState,
    changes: PaymentChanges,
    alongside: (updated: BrowserPaymentRow) => Promise<T>,
  ): Promise<{ payment: BrowserPaymentRow; outcome: T } | null> {
    const current = this.payments.get(id);
    if (!current || !inState(current, expected)) {
      return null;
    }
    const updated = clone({ ...current, ...changes, updatedAt: new Date() });
    const outcome = await alongside(clone(updated));
    if (this.failNextCompletionCommit && changes.interactionStatus === 'COMPLETED') {
      const failure = this.failNextCompletionCommit;
      this.failNextCompletionCommit = null;
      throw failure;
    }
    this.payments.set(id, updated);
    return { payment: clone(updated), outcome };
  }

  async claimExecution(id: string, expected: PaymentState, until: Date, now: Date): Promise<boolean> {
    const current = this.payments.get(id);
    const held = this.leases.get(id);
    if (!current || !inState(current, expected) || (held && held > now)) {
      return false;
    }
    this.leases.set(id, until);
    return true;
  }

  async releaseExecution(id: string, until: Date): Promise<void> {
    if (this.leases.get(id)?.getTime() === until.getTime()) {
      this.leases.delete(id);
    }
  }

  async discardUnrecorded(id: string): Promise<boolean> {
    const current = this.payments.get(id);
    if (!current || !inState(current, { interactionStatus: 'INITIATED', result: 'PENDING' })) {
      return false;
    }
    return this.payments.delete(id);
  }

  async findRefund(paymentId: string, refundTransactionId: string): Promise<ProviderRefundRow | null> {
    return this.refunds.find((r) => r.paymentId === paymentId && r.refundTransactionId === refundTransactionId) ?? null;
  }

  async insertRefund(refund: ProviderRefundRow): Promise<boolean> {
    // Checked and inserted with nothing in between, like the unique key's ON CONFLICT DO NOTHING.
    if (this.refunds.some((r) => r.paymentId === refund.paymentId && r.refundTransactionId === refund.refundTransactionId)) {
      return false;
    }
    this.refunds.push(refund);
    return true;
  }

  async findCapture(paymentId: string, captureTransactionId: string): Promise<ProviderCaptureRow | null> {
    return this.captures.find((c) => c.paymentId === paymentId && c.captureTransactionId === captureTransactionId) ?? null;
  }

  async insertCapture(capture: ProviderCaptureRow): Promise<boolean> {
    if (this.captures.some((c) => c.paymentId === capture.paymentId && c.captureTransactionId === capture.captureTransactionId)) {
      return false;
    }
    this.captures.push(capture);
    return true;
  }

  async findCapturedPayment(merchantId: string, orderId: string, captureTransactionId: string): Promise<BrowserPaymentRow | null> {
    const payment = this.captures
      .filter((c) => c.captureTransactionId === captureTransactionId && c.result === 'SUCCESS')
      .map((c) => this.payments.get(c.paymentId))
      .find((p) => p?.merchantId === merchantId && p.orderId === orderId);
    return payment ? clone(payment) : null;
  }

  only(): BrowserPaymentRow {
    const all = [...this.payments.values()];
    if (all.length !== 1) {
      throw new Error(`expected one payment, found ${all.length}`);
    }
    return clone(all[0]);
  }
}

/** The simulators' books in memory, with the repository's conditional updates. */
export class InMemorySimulatorStore implements SimulatorStore {
  readonly rows = new Map<string, SimulatedPaymentRow>();
  /** Refunds by payment reference and key. */
  readonly refunds = new Map<string, SimulatedRefundRow>();
  /** Captures by payment reference and key. */
  readonly captures = new Map<string, SimulatedCaptureRow>();

  async create(row: Omit<SimulatedPaymentRow, 'createdAt' | 'updatedAt'>, at: Date): Promise<void> {
    this.rows.set(row.reference, { ...row, createdAt: at, updatedAt: at });
  }

  async find(reference: string): Promise<SimulatedPaymentRow | null> {
    const row = this.rows.get(reference);
    return row ? { ...row } : null;
  }

  async move(reference: string, from: SimulatedPaymentStatus[], to: SimulatedPaymentStatus, at: Date): Promise<SimulatedPaymentRow | null> {
    return this.update(reference, (row) => from.includes(row.status), () => ({ status: to }), at);
  }

  async execute(reference: string, operation: PaymentOperation, amount: string, at: Date): Promise<SimulatedPaymentRow | null> {
    return this.update(
      reference,
      (row) => row.status === 'APPROVED' && row.operation === operation,
      () => ({ status: operation === 'PAY' ? 'CAPTURED' : 'AUTHORIZED', amount, capturedAmount: operation === 'PAY' ? amount : '0' }),
      at,
    );
  }

  async void(reference: string, at: Date): Promise<SimulatedPaymentRow | null> {
    return this.update(
      reference,
      (row) =>
        ['AUTHORIZED', 'CAPTURED'].includes(row.status) &&
        parseDecimal(row.refundedAmount).isZero() &&
        (row.operation === 'PAY' || parseDecimal(row.capturedAmount).isZero()),
      () => ({ status: 'VOIDED', capturedAmount: '0' }),
      at,
    );
  }

  async voidAuthorization(reference: string, at: Date): Promise<SimulatedPaymentRow | null> {
    return this.update(
      reference,
      (row) => row.operation === 'AUTHORIZE' && row.status === 'AUTHORIZED' && parseDecimal(row.capturedAmount).isZero(),
      () => ({ status: 'VOIDED' }),
      at,
    );
  }

  async capture(paymentReference: string, captureId: string, amount: string, reference: string, at: Date): Promise<SimulatedCaptureRow | null> {
    // Looked up, decided, stored and moved with nothing in between, like the repository's one statement.
    const key = `${paymentReference} ${captureId}`;
    const earlier = this.captures.get(key);
    if (earlier) {
      return { ...earlier };
    }
    const row = this.rows.get(paymentReference);
    if (!row) {
      return null;
    }
    const captured = parseDecimal(row.capturedAmount).plus(parseDecimal(amount));
    const providerCode =
      row.operation !== 'AUTHORIZE' || !['AUTHORIZED', 'CAPTURED'].includes(row.status)
        ? 'NOT_AUTHORIZED'
        : captured.greaterThan(parseDecimal(row.amount))
          ? 'CAPTURE_EXCEEDS_AUTHORIZED_AMOUNT'
          : 'CAPTURED';
    const approved = providerCode === 'CAPTURED';
    const capture: SimulatedCaptureRow = {
      paymentReference,
      captureId,
      amount,
      currency: row.currency,
      approved,
      providerCode,
      reference: approved ? reference : null,
      createdAt: at,
    };
    this.captures.set(key, capture);
    if (approved) {
      this.rows.set(paymentReference, { ...row, status: 'CAPTURED', capturedAmount: captured.toFixed(), updatedAt: at });
    }
    return { ...capture };
  }

  async refund(paymentReference: string, refundId: string, amount: string, reference: string, at: Date): Promise<SimulatedRefundRow | null> {
    // Looked up, decided, stored and moved with nothing in between, like the repository's one statement.
    const key = `${paymentReference} ${refundId}`;
    const earlier = this.refunds.get(key);
    if (earlier) {
      return { ...earlier };
    }
    const row = this.rows.get(paymentReference);
    if (!row) {
      return null;
    }
    const refunded = parseDecimal(row.refundedAmount).plus(parseDecimal(amount));
    const providerCode =
      row.status !== 'CAPTURED' ? 'NOTHING_CAPTURED' : refunded.greaterThan(parseDecimal(row.capturedAmount)) ? 'REFUND_EXCEEDS_CAPTURED_AMOUNT' : 'REFUNDED';
    const approved = providerCode === 'REFUNDED';
    const refund: SimulatedRefundRow = {
      paymentReference,
      refundId,
      amount,
      currency: row.currency,
      approved,
      providerCode,
      reference: approved ? reference : null,
      createdAt: at,
    };
    this.refunds.set(key, refund);
    if (approved) {
      this.rows.set(paymentReference, { ...row, refundedAmount: refunded.toFixed(), updatedAt: at });
    }
    return { ...refund };
  }

  private async update(
    reference: string,
    when: (row: SimulatedPaymentRow) => boolean,
    changes: (row: SimulatedPaymentRow) => Partial<SimulatedPaymentRow>,
    at: Date,
  ): Promise<SimulatedPaymentRow | null> {
    const row = this.rows.get(reference);
    if (!row || !when(row)) {
      return null;
    }
    const updated = { ...row, ...changes(row), updatedAt: at };
    this.rows.set(reference, updated);
    return { ...updated };
  }
}
