import fc from 'fast-check';
import { GatewayError, OrderStatus, TRANSACTION_RESULTS, TRANSACTION_TYPES, TransactionResult, TransactionType } from '@gateway/contracts';
import { Money } from '@gateway/money';
import { deriveOrderState, LedgerEntry, OrderState } from './derive-order-state';
import { capturable, refundable } from './ledger-rules';
import { recordEntry } from './record-entry';

type Expected = 'REJECTED' | [OrderStatus, authorized: string, captured: string, refunded: string];
type ByResult = Record<TransactionResult, Expected>;

const entry = (type: TransactionType, amount: string, result: TransactionResult = 'SUCCESS'): LedgerEntry => ({
  type,
  amount,
  result,
});

/** Records each entry in turn, as the ledger does; throws the ledger's 400 on a rejected one. */
function recordAll(entries: LedgerEntry[], currency = 'USD', excessiveRefundAllowed = false): OrderState {
  let recorded: LedgerEntry[] = [];
  let state: OrderState | undefined;
  for (const e of entries) {
    ({ entries: recorded, state } = recordEntry(currency, recorded, e, { excessiveRefundAllowed }));
  }
  return state!;
}

function outcome(entries: LedgerEntry[]): Expected {
  try {
    const s = recordAll(entries);
    return [s.status, s.totalAuthorizedAmount.toFixed(), s.totalCapturedAmount.toFixed(), s.totalRefundedAmount.toFixed()];
  } catch (err) {
    if (err instanceof GatewayError && err.httpStatus === 400) {
      return 'REJECTED';
    }
    throw err;
  }
}

const same = (e: Expected): ByResult => ({ SUCCESS: e, FAILURE: e, PENDING: e, UNKNOWN: e });
const onSuccess = (success: Expected, otherwise: Expected): ByResult => ({
  SUCCESS: success,
  FAILURE: otherwise,
  PENDING: otherwise,
  UNKNOWN: otherwise,
});
/** A void counts from its reservation: pending or unknown, it is refused where its success would be. */
const voidRefused = (failure: Expected): ByResult => ({ SUCCESS: 'REJECTED', FAILURE: failure, PENDING: 'REJECTED', UNKNOWN: 'REJECTED' });

/** Every type and result as an order's first transaction (40.00 USD). */
const FIRST_TRANSACTION: Record<TransactionType, ByResult> = {
  AUTHORIZATION: { SUCCESS: ['AUTHORIZED', '40.00', '0.00', '0.00'], FAILURE: ['FAILED', '0.00', '0.00', '0.00'], PENDING: ['INITIATED', '0.00', '0.00', '0.00'], UNKNOWN: ['INITIATED', '0.00', '0.00', '0.00'] },
  AUTHORIZATION_UPDATE: { SUCCESS: ['AUTHORIZED', '40.00', '0.00', '0.00'], FAILURE: ['FAILED', '0.00', '0.00', '0.00'], PENDING: ['INITIATED', '0.00', '0.00', '0.00'], UNKNOWN: ['INITIATED', '0.00', '0.00', '0.00'] },
  // Nothing authorised to capture: a capture that has or may have moved money breaks the capture limit.
  CAPTURE: { SUCCESS: 'REJECTED', FAILURE: ['FAILED', '0.00', '0.00', '0.00'], PENDING: 'REJECTED', UNKNOWN: 'REJECTED' },
  PAYMENT: { SUCCESS: ['CAPTURED', '40.00', '40.00', '0.00'], FAILURE: ['FAILED', '0.00', '0.00', '0.00'], PENDING: ['INITIATED', '0.00', '0.00', '0.00'], UNKNOWN: ['INITIATED', '0.00', '0.00', '0.00'] },
  // A standalone refund is its own order: not limited by a capture.
  REFUND: { SUCCESS: ['REFUNDED', '0.00', '0.00', '40.00'], FAILURE: ['FAILED', '0.00', '0.00', '0.00'], PENDING: ['INITIATED', '0.00', '0.00', '0.00'], UNKNOWN: ['INITIATED', '0.00', '0.00', '0.00'] },
  REFUND_REQUEST: { SUCCESS: ['REFUND_REQUESTED', '0.00', '0.00', '0.00'], FAILURE: ['FAILED', '0.00', '0.00', '0.00'], PENDING: ['REFUND_REQUESTED', '0.00', '0.00', '0.00'], UNKNOWN: ['INITIATED', '0.00', '0.00', '0.00'] },
  VERIFICATION: onSuccess(['VERIFIED', '0.00', '0.00', '0.00'], ['FAILED', '0.00', '0.00', '0.00']),
  // Nothing to void on a new order: a void would leave a total negative once it succeeded.
  VOID_AUTHORIZATION: voidRefused(['FAILED', '0.00', '0.00', '0.00']),
  VOID_CAPTURE: voidRefused(['FAILED', '0.00', '0.00', '0.00']),
  VOID_PAYMENT: voidRefused(['FAILED', '0.00', '0.00', '0.00']),
  VOID_REFUND: voidRefused(['FAILED', '0.00', '0.00', '0.00']),
};

const AUTHORIZED_100: Expected = ['AUTHORIZED', '100.00', '0.00', '0.00'];
/** Every type and result of 40.00 on an order with 100.00 authorised. */
const ON_AUTHORIZED: Record<TransactionType, ByResult> = {
  AUTHORIZATION: onSuccess(['AUTHORIZED', '140.00', '0.00', '0.00'], AUTHORIZED_100),
  AUTHORIZATION_UPDATE: onSuccess(['AUTHORIZED', '140.00', '0.00', '0.00'], AUTHORIZED_100),
  CAPTURE: onSuccess(['PARTIALLY_CAPTURED', '100.00', '40.00', '0.00'], AUTHORIZED_100),
  PAYMENT: onSuccess(['PARTIALLY_CAPTURED', '140.00', '40.00', '0.00'], AUTHORIZED_100),
  // Nothing captured: a refund that has or may have moved money breaks the refund limit.
  REFUND: { SUCCESS: 'REJECTED', FAILURE: AUTHORIZED_100, PENDING: 'REJECTED', UNKNOWN: 'REJECTED' },
  // An outstanding request holds its amount as a refund would: nothing to hold it against.
  REFUND_REQUEST: { SUCCESS: 'REJECTED', FAILURE: AUTHORIZED_100, PENDING: 'REJECTED', UNKNOWN: AUTHORIZED_100 },
  VERIFICATION: same(AUTHORIZED_100),
  VOID_AUTHORIZATION: onSuccess(['AUTHORIZED', '60.00', '0.00', '0.00'], AUTHORIZED_100),
  VOID_CAPTURE: voidRefused(AUTHORIZED_100),
  VOID_PAYMENT: voidRefused(AUTHORIZED_100),
  VOID_REFUND: voidRefused(AUTHORIZED_100),
};

const CAPTURED_100: Expected = ['CAPTURED', '100.00', '100.00', '0.00'];
/** Every type and result of 40.00 on an order with 100.00 authorised and captured. */
const ON_CAPTURED: Record<TransactionType, ByResult> = {
  AUTHORIZATION: onSuccess(['PARTIALLY_CAPTURED', '140.00', '100.00', '0.00'], CAPTURED_100),
  AUTHORIZATION_UPDATE: onSuccess(['PARTIALLY_CAPTURED', '140.00', '100.00', '0.00'], CAPTURED_100),
  // The authorisation is captured in full: a further capture (even pending) breaks the capture limit.
  CAPTURE: { SUCCESS: 'REJECTED', FAILURE: CAPTURED_100, PENDING: 'REJECTED', UNKNOWN: 'REJECTED' },
  PAYMENT: onSuccess(['CAPTURED', '140.00', '140.00', '0.00'], CAPTURED_100),
  // Pending and unknown refunds hold back refundable money but move no total.
  REFUND: onSuccess(['PARTIALLY_REFUNDED', '100.00', '100.00', '40.00'], CAPTURED_100),
  REFUND_REQUEST: { SUCCESS: ['REFUND_REQUESTED', '100.00', '100.00', '0.00'], FAILURE: CAPTURED_100, PENDING: ['REFUND_REQUESTED', '100.00', '100.00', '0.00'], UNKNOWN: CAPTURED_100 },
  VERIFICATION: same(CAPTURED_100),
  // Voiding authorised money already captured would leave captures beyond the authorisations.
  VOID_AUTHORIZATION: voidRefused(CAPTURED_100),
  VOID_CAPTURE: onSuccess(['PARTIALLY_CAPTURED', '100.00', '60.00', '0.00'], CAPTURED_100),
  VOID_PAYMENT: onSuccess(['CAPTURED', '60.00', '60.00', '0.00'], CAPTURED_100),
  VOID_REFUND: voidRefused(CAPTURED_100),
};

function cases(table: Record<TransactionType, ByResult>) {
  return TRANSACTION_TYPES.flatMap((type) => TRANSACTION_RESULTS.map((result) => [type, result, table[type][result]] as const));
}

describe('order status and totals for every transaction type and result', () => {
  it.each(cases(FIRST_TRANSACTION))('first transaction %s %s -> %j', (type, result, expected) => {
    expect(outcome([entry(type, '40.00', result)])).toEqual(expected);
  });

  it.each(cases(ON_AUTHORIZED))('after AUTHORIZATION 100: %s %s -> %j', (type, result, expected) => {
    expect(outcome([entry('AUTHORIZATION', '100.00'), entry(type, '40.00', result)])).toEqual(expected);
  });

  it.each(cases(ON_CAPTURED))('after AUTHORIZATION + CAPTURE 100: %s %s -> %j', (type, result, expected) => {
    expect(
      outcome([entry('AUTHORIZATION', '100.00'), entry('CAPTURE', '100.00'), entry(type, '40.00', result)]),
    ).toEqual(expected);
  });
});

describe('order lifecycles', () => {
  const statuses = (entries: LedgerEntry[], excessive = false) =>
    entries.map((_, i) => recordAll(entries.slice(0, i + 1), 'USD', excessive).status);

  it('authorize, capture part, capture rest, refund part, refund rest: AUTHORIZED to REFUNDED', () => {
    const steps = [
      entry('AUTHORIZATION', '100.00'),
      entry('CAPTURE', '60.00'),
      entry('CAPTURE', '40.00'),
      entry('REFUND', '30.00'),
      entry('REFUND', '70.00'),
    ];
    expect(statuses(steps)).toEqual(['AUTHORIZED', 'PARTIALLY_CAPTURED', 'CAPTURED', 'PARTIALLY_REFUNDED', 'REFUNDED']);
    const final = recordAll(steps);
    expect([final.totalAuthorizedAmount, final.totalCapturedAmount, final.totalRefundedAmount].map(String)).toEqual([
      '100',
      '100',
      '100',
    ]);
  });

  it('refunds beyond the captured amount: refused without the privilege, EXCESSIVELY_REFUNDED with it', () => {
    const steps = [entry('PAYMENT', '50.00'), entry('REFUND', '50.00'), entry('REFUND', '0.01')];
    expect(() => recordAll(steps)).toThrow(/available for refund on this order is 0.00 USD/);
    expect(recordAll(steps, 'USD', true).status).toBe('EXCESSIVELY_REFUNDED');
  });

  it('a refund that would exceed the refundable amount names the amount still available', () => {
    const steps = [entry('PAYMENT', '50.00'), entry('REFUND', '20.00'), entry('REFUND', '30.01')];
    try {
      recordAll(steps);
      throw new Error('expected a rejection');
    } catch (err) {
      expect(err).toBeInstanceOf(GatewayError);
      expect((err as GatewayError).field).toBe('transaction.amount');
      expect((err as GatewayError).explanation).toContain('30.00 USD');
    }
  });

  it('captures in parts up to the authorisation, and refuses a cent beyond it naming what is left', () => {
    const steps = [entry('AUTHORIZATION', '100.00'), entry('CAPTURE', '30.00'), entry('CAPTURE', '70.00')];
    expect(statuses(steps)).toEqual(['AUTHORIZED', 'PARTIALLY_CAPTURED', 'CAPTURED']);
    expect(() => recordAll([...steps.slice(0, 2), entry('CAPTURE', '70.01')])).toThrow(/available for capture on this order is 70.00 USD/);
    // A pending capture holds its amount until it completes.
    expect(() => recordAll([steps[0], entry('CAPTURE', '60.00', 'PENDING'), entry('CAPTURE', '40.01')])).toThrow(
      /available for capture on this order is 40.00 USD/,
    );
    // A voided capture gives its amount back to the authorisation.
    const voided = recordAll([...steps, entry('VOID_CAPTURE', '70.00'), entry('CAPTURE', '70.00')]);
    expect(voided.status).toBe('CAPTURED');
  });

  it('authorize, capture, void the capture: PARTIALLY_CAPTURED back to AUTHORIZED', () => {
    const steps = [entry('AUTHORIZATION', '50.00'), entry('CAPTURE', '20.00'), entry('VOID_CAPTURE', '20.00')];
    expect(statuses(steps)).toEqual(['AUTHORIZED', 'PARTIALLY_CAPTURED', 'AUTHORIZED']);
  });

  it('pay, refund, void the refund: PARTIALLY_REFUNDED back to CAPTURED', () => {
    const steps = [entry('PAYMENT', '50.00'), entry('REFUND', '20.00'), entry('VOID_REFUND', '20.00')];
    expect(statuses(steps)).toEqual(['CAPTURED', 'PARTIALLY_REFUNDED', 'CAPTURED']);
    expect(recordAll(steps).totalRefundedAmount.isZero()).toBe(true);
  });

  it('a voided refund gives its amount back to what can be refunded', () => {
    const steps = [entry('PAYMENT', '50.00'), { ...entry('REFUND', '50.00'), id: 'r1' }, { ...entry('VOID_REFUND', '50.00'), targetTransactionId: 'r1' }];
    expect(recordAll([...steps, entry('REFUND', '50.00')]).status).toBe('REFUNDED');
    expect(() => recordAll([...steps, entry('REFUND', '50.00'), entry('REFUND', '0.01')])).toThrow(/available for refund on this order is 0.00 USD/);
  });

  it('an order refunded beyond its capture under a privilege since withdrawn still records what adds no refund exposure', () => {
    const record = (before: LedgerEntry[], e: LedgerEntry, excessive = false) => recordEntry('USD', before, e, { excessiveRefundAllowed: excessive }).entries;
    const overRefunded = record([entry('PAYMENT', '50.00')], entry('REFUND', '60.00'), true);
    // Without the privilege now: a verification, another payment and a declined refund are recorded.
    for (const e of [entry('VERIFICATION', '0.00'), entry('PAYMENT', '5.00'), entry('REFUND', '1.00', 'FAILURE')]) {
      expect(record(overRefunded, e)).toHaveLength(3);
    }
    // A refund that moves money is refused, naming nothing available (never a negative amount).
    expect(() => record(overRefunded, entry('REFUND', '1.00'))).toThrow(/available for refund on this order is 0.00 USD/);
  });

  it('an order captured beyond its authorisations (recorded before the capture limit) still records what captures nothing more', () => {
    const record = (e: LedgerEntry) => recordEntry('USD', [entry('CAPTURE', '40.00')], e, { excessiveRefundAllowed: false }).entries;
    expect(record(entry('REFUND', '10.00'))).toHaveLength(2);
    expect(record(entry('AUTHORIZATION', '10.00'))).toHaveLength(2);
    expect(() => record(entry('CAPTURE', '0.01'))).toThrow(/available for capture on this order is 0.00 USD/);
  });

  it('a partially approved authorisation is recorded at its approved amount: captures are limited by it', () => {
    const approved = recordAll([entry('AUTHORIZATION', '60.00')]);
    expect(approved.totalAuthorizedAmount.toFixed()).toBe('60.00');
    expect(() => recordAll([entry('AUTHORIZATION', '60.00'), entry('CAPTURE', '60.01')])).toThrow(/60.00 USD/);
  });

  it('declined first payments and authorisations leave the order FAILED with totals zero', () => {
    for (const type of ['AUTHORIZATION', 'PAYMENT'] as const) {
      const state = recordAll([entry(type, '10.00', 'FAILURE')]);
      expect([state.status, state.totalAuthorizedAmount.toFixed(), state.totalCapturedAmount.toFixed()]).toEqual(['FAILED', '0.00', '0.00']);
    }
  });

  it('voids a transaction at most once: a pending void stands in the way of a second, a failed one does not', () => {
    const record = (before: LedgerEntry[], e: LedgerEntry, replacing?: number) =>
      recordEntry('USD', before, e, { excessiveRefundAllowed: false, ...(replacing === undefined ? {} : { replacing }) }).entries;
    const paid = [{ ...entry('PAYMENT', '30.00'), id: 'p1' }, { ...entry('PAYMENT', '30.00'), id: 'p2' }];
    const voidOf = (id: string, target: string, result: TransactionResult = 'SUCCESS') => ({ ...entry('VOID_PAYMENT', '30.00', result), id, targetTransactionId: target });
    const pending = record(paid, voidOf('v1', 'p1', 'PENDING'));
    expect(() => record(pending, voidOf('v2', 'p1', 'PENDING'))).toThrow(/Transaction 'p1' is already voided by transaction 'v1'/);
    // Its own completion replaces the reservation; another target is unaffected.
    const completed = record(pending, voidOf('v1', 'p1'), 2);
    expect(record(completed, voidOf('v2', 'p2'))).toHaveLength(4);
    const failed = record(paid, voidOf('v1', 'p1', 'FAILURE'));
    expect(record(failed, voidOf('v2', 'p1'))).toHaveLength(4);
  });

  it('a failed void voided nothing: its payment can still be refunded, and its refund still stands in the way of the payment\'s void', () => {
    const record = (before: LedgerEntry[], e: LedgerEntry) => recordEntry('USD', before, e, { excessiveRefundAllowed: false }).entries;
    const paid = [{ ...entry('PAYMENT', '100.00'), id: 'p1' }];
    const voidFailed = record(paid, { ...entry('VOID_PAYMENT', '100.00', 'FAILURE'), id: 'v1', targetTransactionId: 'p1' });
    const refunded = record(voidFailed, { ...entry('REFUND', '10.00'), id: 'r1', targetTransactionId: 'p1' });
    expect(refunded).toHaveLength(3);
    const refundVoidFailed = record(refunded, { ...entry('VOID_REFUND', '10.00', 'FAILURE'), id: 'vr1', targetTransactionId: 'r1' });
    expect(() => record(refundVoidFailed, { ...entry('VOID_PAYMENT', '100.00', 'PENDING'), id: 'v2', targetTransactionId: 'p1' })).toThrow(
      /void REFUND 'r1' first/,
    );
  });

  it('limits captures per authorisation, even when the order\'s other authorisations would cover them', () => {
    const record = (before: LedgerEntry[], e: LedgerEntry, replacing?: number) =>
      recordEntry('USD', before, e, { excessiveRefundAllowed: false, ...(replacing === undefined ? {} : { replacing }) }).entries;
    const authorized = [{ ...entry('AUTHORIZATION', '100.00'), id: 'a1' }, { ...entry('AUTHORIZATION', '100.00'), id: 'a2' }];
    const captureOf = (id: string, target: string, amount: string, result: TransactionResult = 'SUCCESS') => ({ ...entry('CAPTURE', amount, result), id, targetTransactionId: target });
    // Two captures of a1 racing: the order holds 200.00, a1 only 100.00.
    const first = record(authorized, captureOf('c1', 'a1', '80.00', 'PENDING'));
    expect(() => record(first, captureOf('c2', 'a1', '40.00', 'PENDING'))).toThrow(/available for capture on this order is 20.00 USD/);
    expect(record(first, captureOf('c2', 'a2', '40.00', 'PENDING'))).toHaveLength(4);
    // A voided capture gives its amount back to its authorisation.
    const captured = record(first, captureOf('c1', 'a1', '80.00'), 2);
    const voided = record(captured, { ...entry('VOID_CAPTURE', '80.00'), id: 'v1', targetTransactionId: 'c1' });
    expect(record(voided, captureOf('c2', 'a1', '100.00'))).toHaveLength(5);
    // Not while its void is under way: the void may still fail.
    const voiding = record(captured, { ...entry('VOID_CAPTURE', '80.00', 'PENDING'), id: 'v1', targetTransactionId: 'c1' });
    expect(() => record(voiding, captureOf('c2', 'a1', '40.00', 'PENDING'))).toThrow(/available for capture on this order is 20.00 USD/);
  });

  it('a pending void of a payment takes its amount out of what can be refunded, so the void can always complete', () => {
    const record = (before: LedgerEntry[], e: LedgerEntry, replacing?: number) =>
      recordEntry('USD', before, e, { excessiveRefundAllowed: false, ...(replacing === undefined ? {} : { replacing }) }).entries;
    const paid = [{ ...entry('PAYMENT', '100.00'), id: 'p1' }, { ...entry('PAYMENT', '100.00'), id: 'p2' }];
    const voiding = record(paid, { ...entry('VOID_PAYMENT', '100.00', 'PENDING'), id: 'v1', targetTransactionId: 'p1' });
    // A refund of the other payment racing the void: only what p2 holds is left.
    expect(() => record(voiding, { ...entry('REFUND', '100.01', 'PENDING'), id: 'r1', targetTransactionId: 'p2' })).toThrow(
      /available for refund on this order is 100.00 USD/,
    );
    const refunding = record(voiding, { ...entry('REFUND', '100.00', 'PENDING'), id: 'r1', targetTransactionId: 'p2' });
    // The void's completion, once the acquirer has returned its money: accepted.
    const completed = record(refunding, { ...entry('VOID_PAYMENT', '100.00'), id: 'v1', targetTransactionId: 'p1' }, 2);
    expect(deriveOrderState('USD', completed)).toMatchObject({ status: 'CAPTURED', totalCapturedAmount: Money.of('100.00', 'USD') });
    expect(refundable('USD', completed).isZero()).toBe(true);
    // The other way round: refunds exposed first, then a void that would leave them beyond the captured amount
    // (a refund naming no target, as recorded before the per-target limit: one of p2 is limited to 100.00).
    const refunded = record(paid, { ...entry('REFUND', '150.00'), id: 'r1' });
    expect(() => record(refunded, { ...entry('VOID_PAYMENT', '100.00', 'PENDING'), id: 'v1', targetTransactionId: 'p1' })).toThrow(
      /refunds would exceed its captured amount \(VOID_PAYMENT\)/,
    );
  });

  it('limits refunds per payment or capture, even when the order\'s other captures would cover them', () => {
    const record = (before: LedgerEntry[], e: LedgerEntry, replacing?: number) =>
      recordEntry('USD', before, e, { excessiveRefundAllowed: false, ...(replacing === undefined ? {} : { replacing }) }).entries;
    const refundOf = (id: string, target: string, amount: string, result: TransactionResult = 'SUCCESS', type: TransactionType = 'REFUND') => ({
      ...entry(type, amount, result),
      id,
      targetTransactionId: target,
    });
    const captured = [
      { ...entry('AUTHORIZATION', '100.00'), id: 'a1' },
      { ...entry('CAPTURE', '30.00'), id: 'c1', targetTransactionId: 'a1' },
      { ...entry('CAPTURE', '70.00'), id: 'c2', targetTransactionId: 'a1' },
    ];
    // The order holds 100.00 to refund, c1 only 30.00.
    expect(() => record(captured, refundOf('r1', 'c1', '30.01'))).toThrow(/available for refund of transaction 'c1' is 30.00 USD/);
    const first = record(captured, refundOf('r1', 'c1', '20.00', 'PENDING'));
    // Pending refunds and outstanding refund requests hold their amount against their target.
    expect(() => record(first, refundOf('r2', 'c1', '10.01', 'PENDING'))).toThrow(/available for refund of transaction 'c1' is 10.00 USD/);
    expect(() => record(first, refundOf('r2', 'c1', '10.01', 'PENDING', 'REFUND_REQUEST'))).toThrow(/transaction 'c1' is 10.00 USD/);
    const rest = record(first, refundOf('r2', 'c1', '10.00', 'PENDING'));
    // Their completions are always accepted; the other capture keeps what it holds.
    const completed = record(rest, refundOf('r1', 'c1', '20.00'), 3);
    expect(record(completed, refundOf('r3', 'c2', '70.00'))).toHaveLength(6);
    // A refund whose void succeeded gives its amount back to its target; a declined refund holds nothing.
    const voided = record(completed, { ...entry('VOID_REFUND', '20.00'), id: 'v1', targetTransactionId: 'r1' });
    expect(record(voided, refundOf('r3', 'c1', '20.00'))).toHaveLength(7);
    expect(record(captured, refundOf('r1', 'c1', '30.01', 'FAILURE'))).toHaveLength(4);
    // With the Excessive Refund privilege a target may be refunded beyond its amount.
    expect(recordEntry('USD', captured, refundOf('r1', 'c1', '50.00'), { excessiveRefundAllowed: true }).state.totalRefundedAmount.toFixed()).toBe('50.00');
    // Refunded beyond its amount under a privilege since withdrawn, a target still records what adds no exposure to it.
    const over = recordEntry('USD', captured, refundOf('r1', 'c1', '50.00', 'PENDING'), { excessiveRefundAllowed: true }).entries;
    expect(record(over, refundOf('r1', 'c1', '50.00'), 3)).toHaveLength(4);
    expect(record(over, refundOf('r2', 'c1', '1.00', 'FAILURE'))).toHaveLength(5);
  });

  it('refunds nothing of a capture or payment that has not succeeded, even when the order\'s other captures would cover it', () => {
    const record = (before: LedgerEntry[], e: LedgerEntry) => recordEntry('USD', before, e, { excessiveRefundAllowed: false }).entries;
    const authorized = [
      { ...entry('AUTHORIZATION', '100.00'), id: 'a1' },
      { ...entry('CAPTURE', '50.00'), id: 'c1', targetTransactionId: 'a1' },
    ];
    // A capture (or payment) still open may yet fail: no money of it can go back until it moved.
    for (const result of ['PENDING', 'UNKNOWN'] as const) {
      const open = record(authorized, { ...entry('CAPTURE', '30.00', result), id: 'c2', targetTransactionId: 'a1' });
      expect(() => record(open, { ...entry('REFUND', '10.00', 'PENDING'), id: 'r1', targetTransactionId: 'c2' })).toThrow(
        /available for refund of transaction 'c2' is 0.00 USD/,
      );
      const paying = record(open, { ...entry('PAYMENT', '20.00', result), id: 'p1' });
      expect(() => record(paying, { ...entry('REFUND', '10.00', 'PENDING'), id: 'r1', targetTransactionId: 'p1' })).toThrow(
        /available for refund of transaction 'p1' is 0.00 USD/,
      );
    }
  });

  it('a pending void of an authorisation takes it out of what can be captured; a pending capture stops its void', () => {
    const record = (before: LedgerEntry[], e: LedgerEntry) => recordEntry('USD', before, e, { excessiveRefundAllowed: false }).entries;
    const authorized = [{ ...entry('AUTHORIZATION', '100.00'), id: 'a1' }];
    const voiding = record(authorized, { ...entry('VOID_AUTHORIZATION', '100.00', 'PENDING'), id: 'v1', targetTransactionId: 'a1' });
    expect(() => record(voiding, { ...entry('CAPTURE', '10.00', 'PENDING'), id: 'c1', targetTransactionId: 'a1' })).toThrow(
      /Transaction 'a1' is being voided \(its void is PENDING\) by transaction 'v1'/,
    );
    // Even a capture naming no authorisation finds nothing left to capture.
    expect(() => record(voiding, { ...entry('CAPTURE', '10.00', 'PENDING'), id: 'c1' })).toThrow(/available for capture on this order is 0.00 USD/);
    const capturing = record(authorized, { ...entry('CAPTURE', '10.00', 'PENDING'), id: 'c1', targetTransactionId: 'a1' });
    expect(() => record(capturing, { ...entry('VOID_AUTHORIZATION', '100.00', 'PENDING'), id: 'v1', targetTransactionId: 'a1' })).toThrow(
      /Transaction 'a1' is not the latest of its chain: void CAPTURE 'c1' first/,
    );
  });

  it('records nothing against a transaction voided or being voided, nor a void while a refund of its target stands', () => {
    const record = (before: LedgerEntry[], e: LedgerEntry) => recordEntry('USD', before, e, { excessiveRefundAllowed: false }).entries;
    const paid = [{ ...entry('PAYMENT', '100.00'), id: 'p1' }, { ...entry('PAYMENT', '100.00'), id: 'p2' }];
    for (const result of ['SUCCESS', 'PENDING', 'UNKNOWN'] as const) {
      const voided = record(paid, { ...entry('VOID_PAYMENT', '100.00', result), id: 'v1', targetTransactionId: 'p1' });
      const refundOfP1 = { ...entry('REFUND', '10.00', 'PENDING'), id: 'r1', targetTransactionId: 'p1' };
      expect(() => record(voided, refundOfP1)).toThrow(GatewayError);
      expect(() => record(voided, refundOfP1)).toThrow(/Transaction 'p1' is (already voided|being voided)/);
      // The order's other payment is still refundable.
      expect(record(voided, { ...refundOfP1, targetTransactionId: 'p2' })).toHaveLength(4);
    }
    for (const result of ['SUCCESS', 'PENDING', 'UNKNOWN'] as const) {
      const refunding = record(paid, { ...entry('REFUND', '10.00', result), id: 'r1', targetTransactionId: 'p1' });
      expect(() => record(refunding, { ...entry('VOID_PAYMENT', '100.00', 'PENDING'), id: 'v1', targetTransactionId: 'p1' })).toThrow(
        /void REFUND 'r1' first/,
      );
    }
    // While the refund's void is under way the refund still stands (that void may fail); once it succeeded, the payment can be voided.
    const refunded = record(paid, { ...entry('REFUND', '10.00'), id: 'r1', targetTransactionId: 'p1' });
    const voidOfPayment = { ...entry('VOID_PAYMENT', '100.00', 'PENDING'), id: 'v1', targetTransactionId: 'p1' };
    for (const result of ['PENDING', 'UNKNOWN'] as const) {
      const refundBeingVoided = record(refunded, { ...entry('VOID_REFUND', '10.00', result), id: 'vr1', targetTransactionId: 'r1' });
      expect(() => record(refundBeingVoided, voidOfPayment)).toThrow(`REFUND 'r1' is being voided (its void 'vr1' is ${result})`);
    }
    const refundVoided = record(refunded, { ...entry('VOID_REFUND', '10.00'), id: 'vr1', targetTransactionId: 'r1' });
    expect(record(refundVoided, voidOfPayment)).toHaveLength(5);
  });

  it('never accepts a void whose completion the failure of a void under way before it would refuse (found by the ledger race test)', () => {
    const record = (before: LedgerEntry[], e: LedgerEntry) => recordEntry('USD', before, e, { excessiveRefundAllowed: false }).entries;
    const complete = (before: LedgerEntry[], id: string, result: 'SUCCESS' | 'FAILURE') => {
      const index = before.findIndex((e) => e.id === id);
      return recordEntry('USD', before, { ...before[index], result }, { replacing: index, excessiveRefundAllowed: false }).entries;
    };
    // An authorisation with a capture whose void is under way; another authorisation covers the capture.
    const capturing = [
      { ...entry('AUTHORIZATION', '100.00'), id: 'f0' },
      { ...entry('AUTHORIZATION', '60.00'), id: 'a0' },
      { ...entry('CAPTURE', '30.00'), id: 'c1', targetTransactionId: 'f0' },
      { ...entry('VOID_CAPTURE', '30.00', 'PENDING'), id: 'w1', targetTransactionId: 'c1' },
    ];
    // Accepted, its void of f0 would reach the acquirer; w1 then declined (or released), c1 would
    // stand again and the void of f0, money moved, could not be recorded.
    expect(() => record(capturing, { ...entry('VOID_AUTHORIZATION', '100.00', 'PENDING'), id: 'v1', targetTransactionId: 'f0' })).toThrow(
      /CAPTURE 'c1' is being voided/,
    );
    // Once w1 is decided either way, the chain reads plainly: c1 stands, or it is voided and f0 can be.
    expect(() => record(complete(capturing, 'w1', 'FAILURE'), { ...entry('VOID_AUTHORIZATION', '100.00', 'PENDING'), id: 'v1', targetTransactionId: 'f0' })).toThrow(
      /void CAPTURE 'c1' first/,
    );
    const voided = record(complete(capturing, 'w1', 'SUCCESS'), { ...entry('VOID_AUTHORIZATION', '100.00', 'PENDING'), id: 'v1', targetTransactionId: 'f0' });
    expect(complete(voided, 'v1', 'SUCCESS').find((e) => e.id === 'v1')?.result).toBe('SUCCESS');

    // The same one step down: a capture's void while a void of its refund is under way.
    const refunding = [
      { ...entry('AUTHORIZATION', '100.00'), id: 'f0' },
      { ...entry('CAPTURE', '30.00'), id: 'c1', targetTransactionId: 'f0' },
      { ...entry('REFUND', '10.00'), id: 'r1', targetTransactionId: 'c1' },
      { ...entry('VOID_REFUND', '10.00', 'PENDING'), id: 'w2', targetTransactionId: 'r1' },
    ];
    expect(() => record(refunding, { ...entry('VOID_CAPTURE', '30.00', 'PENDING'), id: 'v2', targetTransactionId: 'c1' })).toThrow(
      /REFUND 'r1' is being voided/,
    );
  });

  it('an order a standalone refund opened takes no money in, so its refunds stay unlimited by captures only because it has none', () => {
    for (const first of [entry('REFUND', '10.00'), entry('REFUND', '10.00', 'FAILURE'), entry('REFUND_REQUEST', '10.00', 'PENDING')]) {
      for (const type of ['PAYMENT', 'AUTHORIZATION', 'AUTHORIZATION_UPDATE', 'CAPTURE'] as const) {
        for (const result of ['SUCCESS', 'PENDING', 'UNKNOWN'] as const) {
          expect(() => recordAll([first, entry(type, '100.00', result)])).toThrow(/opened by a standalone refund and takes no/);
        }
        // A declined attempt moved nothing: it is recorded.
        expect(() => recordAll([first, entry(type, '100.00', 'FAILURE')])).not.toThrow();
      }
    }
    expect(recordAll([entry('REFUND', '10.00'), entry('VERIFICATION', '0.00')]).status).toBe('REFUNDED');
  });

  it('keeps every total within the largest amount the API answers, pending ones counted as if they succeeded', () => {
    const record = (before: LedgerEntry[], e: LedgerEntry, replacing?: number, excessive = false) =>
      recordEntry('USD', before, e, { excessiveRefundAllowed: excessive, ...(replacing === undefined ? {} : { replacing }) }).entries;
    const pending = record([], { ...entry('PAYMENT', '600000000000.00', 'PENDING'), id: 'p1' });
    expect(() => record(pending, { ...entry('PAYMENT', '400000000000.01', 'PENDING'), id: 'p2' })).toThrow(
      /totalAuthorizedAmount would exceed 1000000000000 USD/,
    );
    const full = record(pending, { ...entry('PAYMENT', '400000000000.00', 'PENDING'), id: 'p2' });
    // Both complete: the reservations held the room.
    const completed = record(record(full, { ...entry('PAYMENT', '600000000000.00'), id: 'p1' }, 0), { ...entry('PAYMENT', '400000000000.00'), id: 'p2' }, 1);
    expect(deriveOrderState('USD', completed).totalCapturedAmount.toFixed()).toBe('1000000000000.00');
    // With the Excessive Refund privilege, refunds are bounded by the same ceiling.
    const refunded = record(completed, { ...entry('REFUND', '1000000000000.00'), id: 'r1', targetTransactionId: 'p1' }, undefined, true);
    expect(() => record(refunded, { ...entry('REFUND', '0.01', 'PENDING'), id: 'r2', targetTransactionId: 'p2' }, undefined, true)).toThrow(
      /totalRefundedAmount would exceed/,
    );
  });

  it('answers a refund beyond what an order captured up to the largest amount holds with the refund limit, on transaction.amount', () => {
    const record = (before: LedgerEntry[], e: LedgerEntry) => recordEntry('KWD', before, e, { excessiveRefundAllowed: false }).entries;
    const paid = record([], { ...entry('PAYMENT', '1000000000000'), id: 'p1' });
    const refunded = record(paid, { ...entry('REFUND', '999999999999.901'), id: 'r1', targetTransactionId: 'p1' });
    let refused: unknown;
    try {
      record(refunded, { ...entry('REFUND', '999000000000'), id: 'r2', targetTransactionId: 'p1' });
    } catch (err) {
      refused = err;
    }
    // Not "the order's totalRefundedAmount would exceed 1000000000000 KWD ... Use another order": a
    // refund cannot move to another order, and what the merchant needs is what is left to refund.
    expect(refused).toMatchObject({
      field: 'transaction.amount',
      validationType: 'INVALID',
      explanation: "Value '999000000000.000' is invalid. The amount available for refund on this order is 0.099 KWD.",
    });
  });

  it('counts what a void under way would take back toward the largest amount: the void may yet fail', () => {
    const record = (before: LedgerEntry[], e: LedgerEntry) => recordEntry('USD', before, e, { excessiveRefundAllowed: false }).entries;
    const paid = record([], { ...entry('PAYMENT', '1000000000000.00'), id: 'p1' });
    const voiding = record(paid, { ...entry('VOID_PAYMENT', '1000000000000.00', 'PENDING'), id: 'v1', targetTransactionId: 'p1' });
    // Were the void declined, a payment accepted now would leave the order beyond what the API answers.
    expect(() => record(voiding, { ...entry('PAYMENT', '0.01', 'PENDING'), id: 'p2' })).toThrow(/totalAuthorizedAmount would exceed 1000000000000 USD/);
  });

  it('pay then void: CAPTURED then CANCELLED, totals back to zero', () => {
    const steps = [entry('PAYMENT', '25.00'), entry('VOID_PAYMENT', '25.00')];
    expect(statuses(steps)).toEqual(['CAPTURED', 'CANCELLED']);
    expect(recordAll(steps).totalCapturedAmount.isZero()).toBe(true);
  });

  it('authorize then void the authorisation: CANCELLED', () => {
    expect(statuses([entry('AUTHORIZATION', '25.00'), entry('VOID_AUTHORIZATION', '25.00')])).toEqual([
      'AUTHORIZED',
      'CANCELLED',
    ]);
  });

  it('a standalone refund then its void: REFUNDED then CANCELLED, totals back to zero', () => {
    const steps = [{ ...entry('REFUND', '40.00'), id: 'r1' }, { ...entry('VOID_REFUND', '40.00'), targetTransactionId: 'r1' }];
    expect(statuses(steps)).toEqual(['REFUNDED', 'CANCELLED']);
    expect(recordAll(steps).totalRefundedAmount.isZero()).toBe(true);
  });

  it('verification only is VERIFIED; a payment after it moves the order on', () => {
    expect(statuses([entry('VERIFICATION', '0.00'), entry('VERIFICATION', '0.00'), entry('AUTHORIZATION', '9.99')])).toEqual([
      'VERIFIED',
      'VERIFIED',
      'AUTHORIZED',
    ]);
  });

  it('a failed first payment is FAILED until a retry on the same order succeeds', () => {
    expect(statuses([entry('PAYMENT', '10.00', 'FAILURE'), entry('PAYMENT', '10.00')])).toEqual(['FAILED', 'CAPTURED']);
  });

  it('a browser payment initiated (PENDING) then completed is INITIATED then CAPTURED', () => {
    const pending = recordEntry('USD', [], entry('PAYMENT', '10.00', 'PENDING'), { excessiveRefundAllowed: false });
    expect(pending.state.status).toBe('INITIATED');
    const completed = recordEntry('USD', pending.entries, entry('PAYMENT', '12.00'), {
      replacing: 0,
      excessiveRefundAllowed: false,
    });
    expect(completed.entries).toHaveLength(1);
    expect(completed.state.status).toBe('CAPTURED');
    expect(completed.state.totalCapturedAmount.toFixed()).toBe('12.00');
  });

  it('a refund request is REFUND_REQUESTED until approved, then counts as a refund', () => {
    const captured = [entry('PAYMENT', '10.00')];
    const requested = recordEntry('USD', captured, entry('REFUND_REQUEST', '10.00', 'PENDING'), { excessiveRefundAllowed: false });
    expect(requested.state.status).toBe('REFUND_REQUESTED');
    const approved = recordEntry('USD', requested.entries, entry('REFUND', '10.00'), { replacing: 1, excessiveRefundAllowed: false });
    expect(approved.state.status).toBe('REFUNDED');
  });

  it('an outstanding refund request holds its amount: a refund beyond the rest is refused', () => {
    const requested = recordEntry('USD', [entry('PAYMENT', '10.00')], entry('REFUND_REQUEST', '6.00', 'PENDING'), {
      excessiveRefundAllowed: false,
    });
    expect(() => recordEntry('USD', requested.entries, entry('REFUND', '4.01'), { excessiveRefundAllowed: false })).toThrow(
      /available for refund on this order is 4.00 USD/,
    );
    expect(recordEntry('USD', requested.entries, entry('REFUND', '4.00'), { excessiveRefundAllowed: false }).state.status).toBe(
      'REFUND_REQUESTED',
    );
  });

  it('works in the currency\'s own minor units (JPY 0, BHD 3)', () => {
    const yen = recordAll([entry('PAYMENT', '1000'), entry('REFUND', '1')], 'JPY');
    expect(yen.totalRefundedAmount.toFixed()).toBe('1');
    const dinar = recordAll([entry('PAYMENT', '1.005'), entry('REFUND', '0.001')], 'BHD');
    expect(dinar.totalRefundedAmount.toJSON()).toBe(0.001);
    expect(() => recordAll([entry('PAYMENT', '1.5')], 'JPY')).toThrow(/JPY amounts are whole numbers/);
  });

  it('a refund on a verified order (the Excessive Refund privilege), then its void: EXCESSIVELY_REFUNDED, then VERIFIED again, as a voided refund on a captured order reads CAPTURED', () => {
    const steps = [entry('VERIFICATION', '0.00'), { ...entry('REFUND', '5.00'), id: 'r1' }, { ...entry('VOID_REFUND', '5.00'), targetTransactionId: 'r1' }];
    expect(statuses(steps, true)).toEqual(['VERIFIED', 'EXCESSIVELY_REFUNDED', 'VERIFIED']);
    const captured = [entry('PAYMENT', '10.00'), { ...entry('REFUND', '5.00'), id: 'r1' }, { ...entry('VOID_REFUND', '5.00'), targetTransactionId: 'r1' }];
    expect(statuses(captured)).toEqual(['CAPTURED', 'PARTIALLY_REFUNDED', 'CAPTURED']);
    // After a declined payment the order stays FAILED whatever the refund did.
    expect(statuses([entry('PAYMENT', '10.00', 'FAILURE'), ...steps.slice(1)], true)).toEqual(['FAILED', 'EXCESSIVELY_REFUNDED', 'FAILED']);
  });

  it('an order whose payment was declined after a verification is FAILED, not VERIFIED', () => {
    expect(statuses([entry('VERIFICATION', '0.00'), entry('PAYMENT', '10.00', 'FAILURE')])).toEqual(['VERIFIED', 'FAILED']);
  });

  it('an order captured beyond its authorisations (recorded before the capture limit) reads CAPTURED, and CANCELLED once that capture is voided', () => {
    expect(deriveOrderState('USD', [entry('AUTHORIZATION', '30.00'), entry('CAPTURE', '40.00')]).status).toBe('CAPTURED');
    expect(deriveOrderState('USD', [entry('CAPTURE', '40.00')]).status).toBe('CAPTURED');
    expect(deriveOrderState('USD', [entry('CAPTURE', '40.00'), entry('VOID_CAPTURE', '40.00')]).status).toBe('CANCELLED');
  });

  it('a declined capture does not stand in the way of its authorisation\'s void', () => {
    const record = (before: LedgerEntry[], e: LedgerEntry) => recordEntry('USD', before, e, { excessiveRefundAllowed: false }).entries;
    const declined = record([{ ...entry('AUTHORIZATION', '100.00'), id: 'a1' }], { ...entry('CAPTURE', '40.00', 'FAILURE'), id: 'c1', targetTransactionId: 'a1' });
    const voided = record(declined, { ...entry('VOID_AUTHORIZATION', '100.00', 'PENDING'), id: 'v1', targetTransactionId: 'a1' });
    expect(voided).toHaveLength(3);
  });

  it('an outstanding refund request stands in the way of its capture\'s or payment\'s void, the Excessive Refund privilege notwithstanding', () => {
    const record = (before: LedgerEntry[], e: LedgerEntry) => recordEntry('USD', before, e, { excessiveRefundAllowed: true }).entries;
    const captured = [{ ...entry('AUTHORIZATION', '100.00'), id: 'a1' }, { ...entry('CAPTURE', '100.00'), id: 'c1', targetTransactionId: 'a1' }];
    const paid = [{ ...entry('PAYMENT', '100.00'), id: 'c1' }];
    for (const [before, voidType] of [[captured, 'VOID_CAPTURE'], [paid, 'VOID_PAYMENT']] as const) {
      const requested = record(before, { ...entry('REFUND_REQUEST', '10.00', 'PENDING'), id: 'r1', targetTransactionId: 'c1' });
      expect(() => record(requested, { ...entry(voidType, '100.00', 'PENDING'), id: 'v1', targetTransactionId: 'c1' })).toThrow(
        /not the latest of its chain: void REFUND_REQUEST 'r1' first/,
      );
    }
  });

  it('refuses a capture naming a declined authorisation, even when another authorisation would cover it', () => {
    const before = [{ ...entry('AUTHORIZATION', '100.00', 'FAILURE'), id: 'a1' }, { ...entry('AUTHORIZATION', '100.00'), id: 'a2' }];
    expect(() =>
      recordEntry('USD', before, { ...entry('CAPTURE', '40.00', 'PENDING'), id: 'c1', targetTransactionId: 'a1' }, { excessiveRefundAllowed: false }),
    ).toThrow(/available for capture on this order is 0.00 USD/);
  });

  it('an order whose voids under way would already leave a total negative (recorded before the single-void rule) still records what voids nothing more', () => {
    const twiceVoiding = [
      { ...entry('PAYMENT', '10.00'), id: 'p1' },
      { ...entry('VOID_PAYMENT', '10.00', 'PENDING'), id: 'v1', targetTransactionId: 'p1' },
      { ...entry('VOID_PAYMENT', '10.00', 'PENDING'), id: 'v2', targetTransactionId: 'p1' },
    ];
    const record = (e: LedgerEntry) => recordEntry('USD', twiceVoiding, e, { excessiveRefundAllowed: false }).entries;
    expect(record(entry('VERIFICATION', '0.00'))).toHaveLength(4);
    expect(() => record({ ...entry('PAYMENT', '5.00'), id: 'p2' })).not.toThrow();
  });

  it('an order beyond the largest amount the API answers (recorded before that bound) still records what adds nothing to its totals', () => {
    const beyond = [entry('PAYMENT', '1000000000000.00'), entry('PAYMENT', '0.01')];
    const record = (e: LedgerEntry) => recordEntry('USD', beyond, e, { excessiveRefundAllowed: false }).entries;
    expect(record(entry('VERIFICATION', '0.00'))).toHaveLength(3);
    expect(record(entry('PAYMENT', '1.00', 'FAILURE'))).toHaveLength(3);
    expect(() => record(entry('PAYMENT', '0.01', 'PENDING'))).toThrow(/totalAuthorizedAmount would exceed 1000000000000 USD/);
  });
});

describe('ledger arithmetic (properties)', () => {
  const types = fc.constantFrom(...TRANSACTION_TYPES);
  const results = fc.constantFrom(...TRANSACTION_RESULTS);
  /** Cents up to 10,000.00 so sequences meet each other's amounts often. */
  const cents = fc.integer({ min: 0, max: 1_000_000 });
  const asText = (c: number) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;
  const steps = fc.array(fc.record({ type: types, result: results, cents }), { maxLength: 25 });

  /** Records what the ledger accepts, skipping what it refuses, like a stream of operations would. */
  function acceptAll(list: { type: TransactionType; result: TransactionResult; cents: number }[], excessive: boolean) {
    let recorded: LedgerEntry[] = [];
    let state: OrderState | undefined;
    for (const step of list) {
      try {
        ({ entries: recorded, state } = recordEntry('USD', recorded, entry(step.type, asText(step.cents), step.result), {
          excessiveRefundAllowed: excessive,
        }));
      } catch (err) {
        if (!(err instanceof GatewayError)) {
          throw err;
        }
      }
    }
    return { recorded, state };
  }

  it('never leaves a total negative, with or without the Excessive Refund privilege', () => {
    fc.assert(
      fc.property(steps, fc.boolean(), (list, excessive) => {
        const { state } = acceptAll(list, excessive);
        if (state) {
          expect(state.totalAuthorizedAmount.isNegative()).toBe(false);
          expect(state.totalCapturedAmount.isNegative()).toBe(false);
          expect(state.totalRefundedAmount.isNegative()).toBe(false);
        }
      }),
    );
  });

  it('never refunds more than was captured without the privilege (a standalone refund aside)', () => {
    fc.assert(
      fc.property(steps, (list) => {
        const { recorded, state } = acceptAll(list, false);
        const standalone = recorded[0]?.type === 'REFUND' || recorded[0]?.type === 'REFUND_REQUEST';
        if (state && !standalone) {
          expect(state.totalRefundedAmount.greaterThan(state.totalCapturedAmount)).toBe(false);
          expect(state.status).not.toBe('EXCESSIVELY_REFUNDED');
        }
      }),
    );
  });

  it('computes totals exactly: the captured total is the integer sum of the cents accepted', () => {
    fc.assert(
      fc.property(fc.array(cents, { minLength: 1, maxLength: 40 }), (amounts) => {
        const state = recordAll(amounts.map((c) => entry('PAYMENT', asText(c))));
        const expected = amounts.reduce((a, b) => a + BigInt(b), 0n);
        expect(state.totalCapturedAmount.toFixed()).toBe(asText(Number(expected)));
      }),
    );
  });

  it('never captures more than is authorised, pending and unknown captures counted', () => {
    fc.assert(
      fc.property(steps, fc.boolean(), (list, excessive) => {
        const { recorded } = acceptAll(list, excessive);
        expect(capturable('USD', recorded).isNegative()).toBe(false);
      }),
    );
  });

  it('never refuses the completion of a reservation it accepted: a void, a capture or a refund can always succeed', () => {
    fc.assert(
      fc.property(steps, fc.boolean(), (list, excessive) => {
        const pendingFirst = list.map((step) => ({ ...step, result: step.result === 'SUCCESS' ? ('PENDING' as const) : step.result }));
        const { recorded } = acceptAll(pendingFirst, excessive);
        recorded.forEach((e, i) => {
          if (e.result === 'PENDING') {
            expect(() =>
              recordEntry('USD', recorded, { ...e, result: 'SUCCESS' }, { replacing: i, excessiveRefundAllowed: excessive }),
            ).not.toThrow();
          }
        });
      }),
    );
  });

  it('sums 0.1 + 0.2 to exactly 0.3, and renders it as the JSON number 0.3', () => {
    const state = recordAll([entry('PAYMENT', '0.3'), entry('REFUND', '0.1'), entry('REFUND', '0.2')]);
    expect(state.totalRefundedAmount.equals(Money.of('0.3', 'USD'))).toBe(true);
    expect(state.status).toBe('REFUNDED');
    expect(JSON.stringify({ totalRefundedAmount: state.totalRefundedAmount })).toBe('{"totalRefundedAmount":0.3}');
  });
});

describe('reservations completed in any order (properties)', () => {
  const FUNDING = ['AUTHORIZATION', 'PAYMENT'] as const;
  const VOID_OF: Partial<Record<TransactionType, TransactionType>> = {
    AUTHORIZATION: 'VOID_AUTHORIZATION',
    CAPTURE: 'VOID_CAPTURE',
    PAYMENT: 'VOID_PAYMENT',
    REFUND: 'VOID_REFUND',
  };
  /** What an operation may act on, once it succeeded (as the operations' plans require): a capture an authorisation, a refund a capture or payment, a void any of them. */
  const TARGETS: Record<string, readonly TransactionType[]> = {
    CAPTURE: ['AUTHORIZATION'],
    REFUND: ['CAPTURE', 'PAYMENT'],
    VOID: ['AUTHORIZATION', 'CAPTURE', 'PAYMENT', 'REFUND'],
  };
  const operation = fc.record({
    kind: fc.constantFrom(...FUNDING, 'AUTHORIZATION', 'CAPTURE', 'CAPTURE', 'REFUND', 'VOID', 'VOID', 'VOID'),
    cents: fc.integer({ min: 1, max: 100 }),
    target: fc.nat(),
    reserved: fc.boolean(),
  });
  type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never;
  const asText = (c: number) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;

  /** The operation as the entry it records (PENDING while reserved), or null when it has nothing to act on. */
  function entryFor(op: Operation, id: string, recorded: readonly LedgerEntry[]): LedgerEntry | null {
    const result: TransactionResult = op.reserved ? 'PENDING' : 'SUCCESS';
    if (op.kind === 'AUTHORIZATION' || op.kind === 'PAYMENT') {
      return { id, type: op.kind, amount: asText(op.cents), result };
    }
    const candidates = recorded.filter((e) => TARGETS[op.kind].includes(e.type) && e.result === 'SUCCESS');
    const target = candidates[op.target % Math.max(candidates.length, 1)];
    if (!target) {
      return null;
    }
    return op.kind === 'VOID'
      ? { id, type: VOID_OF[target.type]!, amount: target.amount, result, targetTransactionId: target.id }
      : { id, type: op.kind, amount: asText(op.cents), result, targetTransactionId: target.id };
  }

  it('accepts the completion of every reservation it accepted, whatever the others came to first: a void whose money moved is never refused', () => {
    const outcomes = fc.constantFrom('SUCCESS', 'FAILURE', 'RELEASED');
    fc.assert(
      fc.property(
        fc.array(operation, { minLength: 2, maxLength: 14 }),
        fc.array(fc.record({ pick: fc.nat(), outcome: outcomes }), { maxLength: 14 }),
        fc.boolean(),
        (operations, completions, excessive) => {
          let recorded: LedgerEntry[] = [];
          operations.forEach((op, i) => {
            const incoming = entryFor(op, `t${i}`, recorded);
            if (!incoming) return;
            try {
              recorded = recordEntry('USD', recorded, incoming, { excessiveRefundAllowed: excessive }).entries;
            } catch (err) {
              if (!(err instanceof GatewayError)) throw err;
            }
          });
          // The reservations end one by one, in any order: each completion must be accepted.
          for (const { pick, outcome } of completions) {
            const open = recorded.map((e, i) => [e, i] as const).filter(([e]) => e.result === 'PENDING');
            if (open.length === 0) break;
            const [reservation, index] = open[pick % open.length];
            if (outcome === 'RELEASED') {
              recorded = recorded.filter((_, i) => i !== index);
              continue;
            }
            const completed = { ...reservation, result: outcome };
            expect(() => {
              recorded = recordEntry('USD', recorded, completed, { replacing: index, excessiveRefundAllowed: excessive }).entries;
            }).not.toThrow();
          }
        },
      ),
      {
        numRuns: Number(process.env.RUNS ?? 2_000),
        // Found by the ledger race test (ledger-races.int-spec.ts): a void of f0 accepted while the
        // void of its capture t2 was under way, then that void failed, then f0's void succeeded.
        examples: [
          [
            [
              { kind: 'AUTHORIZATION', cents: 100, target: 0, reserved: false },
              { kind: 'AUTHORIZATION', cents: 60, target: 0, reserved: false },
              { kind: 'CAPTURE', cents: 30, target: 0, reserved: false },
              { kind: 'VOID', cents: 1, target: 2, reserved: true },
              { kind: 'VOID', cents: 1, target: 0, reserved: true },
            ],
            [
              { pick: 0, outcome: 'FAILURE' },
              { pick: 0, outcome: 'SUCCESS' },
            ],
            false,
          ],
        ],
      },
    );
  });
});
