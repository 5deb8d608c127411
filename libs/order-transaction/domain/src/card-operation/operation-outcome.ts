import type { JsonObject, MaskedCard, TransactionResult } from '@gateway/contracts';
import type { AcquirerAnswerAmounts } from './acquirer-answer';

/** What a money-moving call came to, whoever made it: what every operation's response shows of it. */
export interface OperationOutcome {
  result: TransactionResult;
  /** response.gatewayCode */
  gatewayCode: string;
  acquirerCode?: string;
  acquirerMessage?: string;
  /** transaction.acquirer (id, merchantId, transactionId, date, time). */
  acquirer?: JsonObject;
  authorizationResponse?: JsonObject;
  /** transaction.receipt */
  receipt?: string;
  /** The card the call used, masked. */
  card?: MaskedCard;
  /**
   * An acquirer's answer only: the amounts it said, checked against what was asked before the
   * outcome is recorded (RunReservedOperation); never part of a record or a response.
   */
  answered?: AcquirerAnswerAmounts;
}

/** A reservation's outcome until the call answers: the transaction holds its amount (spec: PENDING). */
export const OUTCOME_RESERVED = { result: 'PENDING', gatewayCode: 'PENDING' } as const satisfies OperationOutcome;

/**
 * No answer came back (a timeout, a fault after sending), or a success that disagrees with what was asked
 * (acquirer-answer.ts): the money may have moved, so the amount stays reserved (spec: UNKNOWN).
 */
export const OUTCOME_UNKNOWN = { result: 'UNKNOWN', gatewayCode: 'UNKNOWN' } as const satisfies OperationOutcome;
