import { Type } from 'class-transformer';
import { IsInt, IsISO8601, IsOptional, IsString, IsUUID, Matches, Max, Min, ValidateNested } from 'class-validator';
import { RequestEnvelope } from '../envelope';

/**
 * A browser payment whose redirect token expired before its journey ended can no longer be
 * moved by the payer, so the gateway settles it on its own: the edge asks browser-payment which
 * payments are due (`browser-payment.expired.due.v1`), takes each one's order lock like any
 * step on the order (ARCHITECTURE 4.9), and sends the settlement with the lock's fencing token
 * (`browser-payment.expired.settle.v1`, authMethod GATEWAY). What settling does is
 * browser-payment's (docs/decisions/browser-payment-journey.md, amendment 2026-11-25).
 */

/** Where the previous page of due payments ended: the next one starts after it. */
export class ExpiredPaymentsCursor {
  @IsISO8601({ strict: true })
  tokenExpiresAt: string;

  @IsUUID()
  paymentId: string;
}

/** `browser-payment.expired.due.v1` (no lock, no change). */
export class ExpiredPaymentsQuery {
  @IsString()
  @Matches(/^[A-Za-z0-9-]{1,64}$/)
  requestId: string;

  @IsInt()
  @Min(1)
  @Max(1_000)
  limit: number;

  /** A sweep pages through the due payments, so those it could not settle never hold back the rest. */
  @IsOptional()
  @ValidateNested()
  @Type(() => ExpiredPaymentsCursor)
  after?: ExpiredPaymentsCursor;
}

/** One payment due, and the order the edge must lock to settle it. */
export interface ExpiredPayment {
  paymentId: string;
  merchantId: string;
  orderId: string;
  /** ISO 8601: with the id, where the page ends. */
  tokenExpiresAt: string;
}

export interface ExpiredPaymentsReply {
  /** Oldest token first (then by id). */
  payments: ExpiredPayment[];
}

/** `browser-payment.expired.settle.v1`, under the order lock. */
export class SettleExpiredPaymentMessage {
  /** The payment's merchant, authMethod GATEWAY, the order lock's fencing token. */
  @ValidateNested()
  @Type(() => RequestEnvelope)
  envelope: RequestEnvelope;

  @IsUUID()
  paymentId: string;
}

/**
 * What settling did: COMPLETED (executed at the provider: result SUCCESS, or FAILURE if the
 * provider refused), RETURNED (approved at the provider, now waiting for the merchant's
 * CONFIRM_BROWSER_PAYMENT), TIMED_OUT (the transaction failed), DISCARDED (an initiate the
 * ledger never recorded, answered LOCK_FAILURE: no transaction, no money, its journey removed so
 * the merchant may use the transaction id again), or NOT_DUE (another step or settlement moved
 * it first, or its token is still good; nothing changed).
 */
export const SETTLEMENT_OUTCOMES = ['COMPLETED', 'RETURNED', 'TIMED_OUT', 'DISCARDED', 'NOT_DUE'] as const;
export type SettlementOutcome = (typeof SETTLEMENT_OUTCOMES)[number];

export interface SettleExpiredPaymentReply {
  outcome: SettlementOutcome;
}
