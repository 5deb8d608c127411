import type { Money } from '@gateway/money';

/**
 * What an operation asked its acquirer for, against which the acquirer's answer is checked before
 * the ledger records it as a success (RunReservedOperation, docs/decisions/acquirer-answer-checks.md).
 */
export interface AcquirerAsk {
  /** The amount asked for, in the operation's currency (a VOID's is its target's: its answer names none). */
  amount: Money;
  /**
   * Whether the answer may approve less than asked: an AUTHORIZE or PAY whose request accepted a
   * partial approval (`order.acceptPartialAmount`). Never a CAPTURE, VOID or REFUND.
   */
  partialApproval: boolean;
}

/**
 * What an acquirer's answer said of the money, as the connector (or the vault's reply) gave it:
 * carried on the outcome for the check only, never recorded or answered.
 */
export interface AcquirerAnswerAmounts {
  /** What the acquirer says it approved, captured or refunded (none in a VOID's answer). */
  amount?: Money;
  /** What the acquirer says was asked (AUTHORIZE, PAY). */
  requestedAmount?: Money;
}

/** The ways an answer can disagree with what was asked: a metric label, so a closed list. */
export const ANSWER_DISCREPANCIES = [
  'CURRENCY',
  'REQUESTED_AMOUNT',
  'NOT_POSITIVE',
  'MORE_THAN_ASKED',
  'PARTIAL_NOT_ACCEPTED',
] as const;
export type AnswerDiscrepancyKind = (typeof ANSWER_DISCREPANCIES)[number];

export interface AnswerDiscrepancy {
  kind: AnswerDiscrepancyKind;
  /** For the operator's log line: amounts and codes, never card data. */
  detail: string;
}

/** The parts of an outcome the check reads. */
export interface CheckedAnswer {
  result: string;
  gatewayCode: string;
  answered?: AcquirerAnswerAmounts;
}

/**
 * How a successful acquirer answer disagrees with what was asked, or undefined when it does not.
 * Only a SUCCESS is checked: it is the one answer the ledger records as money moved (a decline
 * records the amount asked, moving nothing; UNKNOWN keeps it reserved). An outcome that carries no
 * `answered` is not an acquirer's (a browser payment provider's) and is not checked here.
 *
 * Exact decimals throughout (Money); a currency differing is found before any comparison, which
 * would throw on it.
 */
export function discrepancyOf(asked: AcquirerAsk, outcome: CheckedAnswer): AnswerDiscrepancy | undefined {
  const answered = outcome.answered;
  if (outcome.result !== 'SUCCESS' || answered === undefined) {
    return undefined;
  }
  const want = asked.amount;
  const requested = answered.requestedAmount;
  if (requested !== undefined) {
    if (requested.currency !== want.currency) {
      return {
        kind: 'CURRENCY',
        detail: `requested amount answered in ${requested.currency}, asked in ${want.currency}`,
      };
    }
    if (!requested.equals(want)) {
      return {
        kind: 'REQUESTED_AMOUNT',
        detail: `requested amount answered ${requested.toFixed()}, asked ${want.toFixed()} ${want.currency}`,
      };
    }
  }
  const approved = answered.amount;
  if (approved !== undefined) {
    if (approved.currency !== want.currency) {
      return {
        kind: 'CURRENCY',
        detail: `approved ${approved.toFixed()} ${approved.currency}, asked ${want.toFixed()} ${want.currency}`,
      };
    }
    if (!approved.isPositive()) {
      return {
        kind: 'NOT_POSITIVE',
        detail: `approved ${approved.toFixed()} ${approved.currency}, asked ${want.toFixed()}`,
      };
    }
    if (approved.greaterThan(want)) {
      return {
        kind: 'MORE_THAN_ASKED',
        detail: `approved ${approved.toFixed()} ${approved.currency}, asked ${want.toFixed()}`,
      };
    }
    if (approved.lessThan(want) && !asked.partialApproval) {
      return {
        kind: 'PARTIAL_NOT_ACCEPTED',
        detail: `approved ${approved.toFixed()} ${approved.currency} of ${want.toFixed()} asked, no partial approval accepted`,
      };
    }
  }
  // The code alone claims a part: a VOID's answer has no amount to show which part.
  if (outcome.gatewayCode === 'PARTIALLY_APPROVED' && !asked.partialApproval) {
    return {
      kind: 'PARTIAL_NOT_ACCEPTED',
      detail: `answered PARTIALLY_APPROVED, no partial approval accepted (asked ${want.toFixed()} ${want.currency})`,
    };
  }
  return undefined;
}
