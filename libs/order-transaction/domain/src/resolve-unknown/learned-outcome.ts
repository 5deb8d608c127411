import { GatewayError, JsonObject, TransactionResult } from '@gateway/contracts';
import { Money, MoneyError } from '@gateway/money';
import { objectOrEmpty } from '../ledger-response/order-snapshot';

/**
 * The outcomes that can be learned about a transaction recorded UNKNOWN. APPROVED: the acquirer
 * processed it and the issuer approved (the answer was lost). PARTIALLY_APPROVED: an AUTHORIZE or
 * PAY whose request accepted partial amounts, approved for less (`approvedAmount`), recorded as
 * its completion would have recorded it. DECLINED: it moved no money, the issuer refused it or
 * the acquirer never processed it (the spec's result FAILURE, "declined or rejected by gateway,
 * acquirer or issuer"; docs/decisions/unknown-resolution.md says why one code serves both).
 */
export const LEARNED_CODES = ['APPROVED', 'PARTIALLY_APPROVED', 'DECLINED'] as const;
export type LearnedCode = (typeof LEARNED_CODES)[number];

/** What was learned, from the acquirer's records or its inquiry. */
export interface LearnedOutcome {
  gatewayCode: LearnedCode;
  /** transaction.acquirer.transactionId: the acquirer's reference, which captures, voids and refunds are sent by. */
  acquirerTransactionId?: string;
  /**
   * transaction.acquirer.id, ALWAYS PROVIDED in its group: needed with a reference only when the
   * stored response names no acquirer (its call threw, so no answer named one).
   */
  acquirerId?: string;
  /** transaction.authorizationCode: the issuer's approval code (approvals only, partial ones too). */
  authorizationCode?: string;
  /**
   * PARTIALLY_APPROVED only, and required there: what the issuer approved, an exact decimal
   * string in the order's currency and its decimals, above 0 and below the transaction's amount.
   */
  approvedAmount?: string;
  /** The currency of `approvedAmount` when its source names one (an acquirer's answer): must be the order's. */
  approvedCurrency?: string;
  /** response.acquirerCode and authorizationResponse.responseCode (ISO 8583). */
  acquirerCode?: string;
  acquirerMessage?: string;
}

export function resultOf(code: LearnedCode): TransactionResult {
  return isApproval(code) ? 'SUCCESS' : 'FAILURE';
}

/** The issuer approved, in full or in part: the money moved, an approval code may come with it. */
export function isApproval(code: LearnedCode): boolean {
  return code === 'APPROVED' || code === 'PARTIALLY_APPROVED';
}

/** The spec's types of what an outcome carries: String(1-100), ASCII(1-100), ASCII(1-255). */
const REFERENCE = /^[^\x00-\x1f\x7f]{1,100}$/;
const ASCII_100 = /^[\x20-\x7e]{1,100}$/;
const ASCII_255 = /^[\x20-\x7e]{1,255}$/;
const ACQUIRER_ID = /^[^\x00-\x1f\x7f]{1,40}$/;

/**
 * Refuses an outcome the spec's fields could not hold, an approval code on a decline, or an
 * approved amount missing from a partial approval (or given with another outcome). The amount's
 * currency and bounds are the transaction's: decideResolution checks them (approvedAmountOf).
 */
export function assertLearnedOutcome(learned: LearnedOutcome): void {
  const bad = (field: string, why: string) => GatewayError.invalidField(field, 'INVALID', `The learned outcome's ${field} ${why}.`);
  if (!(LEARNED_CODES as readonly string[]).includes(learned.gatewayCode)) {
    throw bad('gatewayCode', `must be one of ${LEARNED_CODES.join(', ')}`);
  }
  if (learned.acquirerTransactionId !== undefined && !REFERENCE.test(learned.acquirerTransactionId)) {
    throw bad('acquirerTransactionId', 'must be 1 to 100 characters without control characters');
  }
  if (learned.acquirerId !== undefined && !ACQUIRER_ID.test(learned.acquirerId)) {
    throw bad('acquirerId', 'must be 1 to 40 characters without control characters');
  }
  if (learned.gatewayCode === 'PARTIALLY_APPROVED' && learned.approvedAmount === undefined) {
    throw GatewayError.invalidField('approvedAmount', 'MISSING', 'A partial approval is recorded with the amount the issuer approved.');
  }
  if (learned.gatewayCode !== 'PARTIALLY_APPROVED' && (learned.approvedAmount !== undefined || learned.approvedCurrency !== undefined)) {
    throw bad('approvedAmount', 'is given on partial approvals only');
  }
  if (learned.authorizationCode !== undefined) {
    if (!isApproval(learned.gatewayCode)) {
      throw bad('authorizationCode', 'is given on approvals only');
    }
    if (!ASCII_100.test(learned.authorizationCode)) {
      throw bad('authorizationCode', 'must be 1 to 100 printable ASCII characters');
    }
  }
  if (learned.acquirerCode !== undefined && !ASCII_100.test(learned.acquirerCode)) {
    throw bad('acquirerCode', 'must be 1 to 100 printable ASCII characters');
  }
  if (learned.acquirerMessage !== undefined && !ASCII_255.test(learned.acquirerMessage)) {
    throw bad('acquirerMessage', 'must be 1 to 255 printable ASCII characters');
  }
}

/**
 * The transaction's stored response with what was learned in place of what was not known: the
 * acquirer's reference, the approval code (a decline carries none) and the acquirer's response
 * code when known. Everything else stays as recorded, `timeOfRecord` included: the transaction
 * happened when it was recorded; `order.lastUpdatedTime` says when the ledger learned more.
 * `result` and `response.gatewayCode` are the ledger's (completeResponse sets them).
 */
export function learnedResponse(stored: JsonObject, learned: LearnedOutcome): JsonObject {
  const transaction = { ...objectOrEmpty(stored.transaction) };
  if (!isApproval(learned.gatewayCode)) {
    delete transaction.authorizationCode;
  }
  if (learned.acquirerTransactionId !== undefined) {
    const acquirer = objectOrEmpty(transaction.acquirer);
    if (acquirer.id === undefined && learned.acquirerId === undefined) {
      throw GatewayError.invalidField(
        'acquirerId',
        'MISSING',
        'The transaction\'s stored response names no acquirer (its call got no answer at all): say which acquirer holds the reference.',
      );
    }
    transaction.acquirer = { ...(learned.acquirerId !== undefined ? { id: learned.acquirerId } : {}), ...acquirer, transactionId: learned.acquirerTransactionId };
  }
  if (isApproval(learned.gatewayCode) && learned.authorizationCode !== undefined) {
    transaction.authorizationCode = learned.authorizationCode;
  }
  const body: JsonObject = { ...stored, transaction };
  if (learned.acquirerCode !== undefined || learned.acquirerMessage !== undefined) {
    body.response = {
      ...objectOrEmpty(stored.response),
      ...(learned.acquirerCode !== undefined ? { acquirerCode: learned.acquirerCode } : {}),
      ...(learned.acquirerMessage !== undefined ? { acquirerMessage: learned.acquirerMessage } : {}),
    };
  }
  if (learned.acquirerCode !== undefined && stored.authorizationResponse !== undefined) {
    body.authorizationResponse = { ...objectOrEmpty(stored.authorizationResponse), responseCode: learned.acquirerCode };
  }
  return body;
}

/**
 * A partial approval's amount as Money in the transaction's currency: an exact decimal string
 * with no more decimals than the currency has, above 0 and below what was asked (an approval of
 * all of it is APPROVED). Refused (400 on approvedAmount) otherwise.
 */
export function approvedAmountOf(learned: LearnedOutcome, requested: Money): Money {
  const bad = (why: string) => GatewayError.invalidField('approvedAmount', 'INVALID', `The learned outcome's approvedAmount ${why}.`);
  if (learned.approvedCurrency !== undefined && learned.approvedCurrency !== requested.currency) {
    throw bad(`is in ${learned.approvedCurrency}, not the transaction's currency ${requested.currency}`);
  }
  let approved: Money;
  try {
    approved = Money.ofRequest(learned.approvedAmount ?? '', requested.currency);
  } catch (err) {
    if (err instanceof MoneyError) {
      throw bad(`'${String(learned.approvedAmount).slice(0, 20)}' is invalid: ${err.message}`);
    }
    throw err;
  }
  if (!approved.isPositive() || !approved.lessThan(requested)) {
    throw bad(`must be above 0 and below the transaction's amount, ${requested.toFixed()} ${requested.currency} (an approval of all of it is APPROVED)`);
  }
  return approved;
}

/**
 * The stored response of a partial approval, as its completion answers one (card-payment-response.ts):
 * `transaction.requestedAmount` the amount asked for (the ledger sets `transaction.amount` and
 * `order.amount` to the approved one), and no `transaction.taxAmount`: the tax of the part approved
 * is not known (test-acquirer-partial-approvals.md, amendment 2026-11-26).
 */
export function partiallyApprovedResponse(body: JsonObject, requested: Money): JsonObject {
  const { taxAmount: _requestsTax, ...transaction } = objectOrEmpty(body.transaction);
  return { ...body, transaction: { ...transaction, requestedAmount: requested.toJSON() } };
}
