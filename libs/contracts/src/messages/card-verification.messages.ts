import { Type } from 'class-transformer';
import { IsOptional, IsString, Length, Matches, ValidateNested } from 'class-validator';
import { RequestEnvelope } from '../envelope';
import type { MaskedCard } from './card-custody.messages';
import type { TransactionResult } from './ledger.messages';

/**
 * `verification.card.verify.v1`: the token vault's ACQUIRER verification strategy (spec: token
 * rule 9, `verificationStrategy` ACQUIRER "performs an acquirer verify request"). The vault
 * asks the verification service, which asks the merchant's acquirer (the test acquirer for
 * test merchants, ACQUIRER_NOT_CONFIGURED for live ones) and answers the acquirer's outcome
 * with its security code and AVS results, unchanged; the vault maps them to its
 * EXTERNAL_VERIFICATION_* codes.
 *
 * No ledger record is written: saving a token is not an order operation, it has no order or
 * transaction id and no per-order lock. The call is counted like every acquirer call
 * (`gateway_acquirer_requests_total{operation="VERIFY"}`).
 *
 * The card is the one the merchant sent in the token request (explicit card data, which the
 * vault received in clear anyway); the security code is used for this call only and never
 * stored. Messages carry the number in clear, so they must never be logged.
 */

/** `card.expiry`: month 1-12 (leading zero allowed), two-digit year (2000 + value). */
export class CardVerificationExpiry {
  @Matches(/^(0?[1-9]|1[0-2])$/)
  month: string;

  @Matches(/^[0-9]{2}$/)
  year: string;
}

export class CardVerificationCard {
  @Matches(/^[0-9]{9,19}$/)
  number: string;

  @ValidateNested()
  @Type(() => CardVerificationExpiry)
  expiry: CardVerificationExpiry;

  @IsOptional()
  @Matches(/^[0-9]{3,4}$/)
  securityCode?: string;

  @IsOptional()
  @IsString()
  @Length(1, 256)
  nameOnCard?: string;
}

/** The billing address the acquirer checks (AVS), as the token request's `billing.address`. */
export class CardVerificationAddress {
  @IsOptional() @IsString() @Length(1, 100) street?: string;
  @IsOptional() @IsString() @Length(1, 100) street2?: string;
  @IsOptional() @IsString() @Length(1, 100) city?: string;
  @IsOptional() @IsString() @Length(1, 100) company?: string;
  @IsOptional() @IsString() @Length(1, 10) postcodeZip?: string;
  @IsOptional() @IsString() @Length(1, 20) stateProvince?: string;
  @IsOptional() @IsString() @Length(1, 3) stateProvinceCode?: string;
  @IsOptional() @Matches(/^[A-Z]{3}$/) country?: string;
}

/** `verification.card.verify.v1` */
export class CardVerificationMessage {
  @ValidateNested()
  @Type(() => RequestEnvelope)
  envelope: RequestEnvelope;

  @ValidateNested()
  @Type(() => CardVerificationCard)
  card: CardVerificationCard;

  /** The currency the acquirer verifies in (the token request's `transaction.currency`). */
  @Matches(/^[A-Z]{3}$/)
  currency: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => CardVerificationAddress)
  billingAddress?: CardVerificationAddress;

  /**
   * How the acquirer references the call, in place of an order and transaction id (the vault
   * sends the token id, or its request id for a token not generated yet, cut to fit and followed by
   * a suffix unique per verification). Never card data.
   */
  @IsString()
  @Length(1, 40)
  reference: string;
}

export interface CardVerificationReply {
  /** The acquirer's `response.gatewayCode`: APPROVED, DECLINED, EXPIRED_CARD, TIMED_OUT, UNKNOWN, ... */
  gatewayCode: string;
  result: TransactionResult;
  acquirerCode?: string;
  acquirerMessage?: string;
  /** `response.cardSecurityCode`: MATCH, NOT_PRESENT, NOT_PROCESSED, NOT_SUPPORTED, NO_MATCH. */
  cardSecurityCode: { gatewayCode: string; acquirerCode?: string };
  /** `response.cardholderVerification.avs`: one of the 12 AVS codes. */
  avs: { gatewayCode: string; acquirerCode?: string };
  /** The card as the acquirer saw it: 6.4 masked number, expiry, brand, scheme, funding method. */
  card: MaskedCard;
}
