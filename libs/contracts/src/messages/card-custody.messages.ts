import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsObject, IsOptional, IsString, Length, Matches, ValidateBy, ValidateNested } from 'class-validator';
import { isCardNumber } from '@gateway/crypto';
import { RequestEnvelope } from '../envelope';
import { Verbatim } from '../verbatim';
import { JsonObject, OperationDeadline } from './operation.messages';

/**
 * Card custody: the token vault is the only service that ever decrypts a stored PAN
 * (ARCHITECTURE 1, 6). When an operation's card comes from a token or a payment session, the
 * service performing it never sees the number: it asks the vault to make the acquirer call.
 * A card the merchant sent explicitly in the request is used by the service directly (it
 * arrived in the request anyway).
 *
 *   token-vault.card.seal.v1       a payment session's card details, encrypted by the vault
 *                                  into an opaque value the edge keeps in the session and
 *                                  passes along with operations that name the session;
 *   token-vault.acquirer.call.v1   an acquirer operation whose card is a token and/or a sealed
 *                                  session card, completed by explicit request values:
 *                                  explicit > session > token (spec session rules), and the
 *                                  combination must be complete.
 *
 * Both are validated by the vault like any message (these classes); card values in them were
 * validated by the edge against the spec's field types already, so a value that fails here is
 * a fault between our processes (SERVER_FAILED), not a merchant error. Merchant errors are
 * coded 400s (docs/card-custody.md): an unknown, deleted or other repository's token is
 * INVALID_FIELD on `sourceOfFunds.token`; a sealed value that does not open for this merchant
 * and binding is INVALID_FIELD on `session.id`; an incomplete card is INVALID_FIELD MISSING on
 * the request field that would complete it (`sourceOfFunds.provided.card.number` or
 * `.expiry`).
 */

/** What a response may show of a card: masked number, expiry, and BIN-derived facts. */
export interface MaskedCard {
  /** 6.4 masked (512345xxxxxx0008). */
  number: string;
  /** As VERIFY responses show it: month without a leading zero ("1"), two-digit year ("39"). */
  expiry?: { month: string; year: string };
  brand?: string;
  scheme?: string;
  fundingMethod?: string;
  nameOnCard?: string;
}

export class CardExpiryFields {
  /** 1-12, with or without a leading zero. */
  @Matches(/^(0?[1-9]|1[0-2])$/)
  month: string;

  /** Two digits: 2000 + value. */
  @Matches(/^[0-9]{2}$/)
  year: string;
}

/**
 * The request field's rule for a card number (Digits(9-19) passing Luhn), checked again where a
 * service receives one: a number the edge let through would be our fault, not the merchant's.
 */
function IsCardNumber(): PropertyDecorator {
  return ValidateBy({
    name: 'isCardNumber',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && isCardNumber(value),
      defaultMessage: () => 'number must be 9 to 19 digits passing the Luhn check',
    },
  });
}

/** Card fields a request gives explicitly (request values win over session and token). */
export class ExplicitCardFields {
  @IsOptional()
  @IsCardNumber()
  number?: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => CardExpiryFields)
  expiry?: CardExpiryFields;

  @IsOptional()
  @Matches(/^[0-9]{3,4}$/)
  securityCode?: string;

  @IsOptional()
  @IsString()
  @Length(1, 256)
  nameOnCard?: string;
}

/** What a sealed value is bound to: a payment session id (the spec's session.id is ASCII 31-35). */
const BINDING_ID = /^[\x21-\x7e]{1,64}$/;

/** `token-vault.card.seal.v1` */
export class SealCardMessage {
  @ValidateNested()
  @Type(() => RequestEnvelope)
  envelope: RequestEnvelope;

  /** What the sealed value is bound to (a session id): it opens only for the same merchant and binding. */
  @Matches(BINDING_ID)
  bindingId: string;

  /** The fields to seal; each one given replaces the same field of `previous`. */
  @ValidateNested()
  @Type(() => ExplicitCardFields)
  card: ExplicitCardFields;

  /**
   * The session's current sealed value, when it has one: sessions are updated field by field,
   * and only the vault can open a sealed value to merge into it. Same merchant and binding.
   */
  @IsOptional()
  @IsString()
  @Length(1, 4096)
  previous?: string;

  /**
   * Seal the result without a security code: an operation has used the session's (PCI DSS keeps
   * no sensitive authentication data after the authorisation that used it; docs/card-custody.md).
   */
  @IsOptional()
  @IsBoolean()
  withoutSecurityCode?: boolean;

  /**
   * The edge's deadline (OperationDeadline): the vault seals nothing once it has passed. A seal
   * changes nothing at the vault; the edge keeps its answer (in the session, or as the card an
   * operation sends) only if the answer comes in time (docs/decisions/operation-deadline.md,
   * amendment on reads).
   */
  @OperationDeadline()
  deadline?: number;
}

/**
 * `token-vault.card.reveal.v1`: the number inside a session's sealed card, for a session
 * retrieval with an authorised `responseControls.sensitiveData=UNMASK`. The vault applies the
 * unmask rule to the envelope itself (permission and certificate authentication): it trusts no
 * caller. Same merchant and binding checks as every sealed value.
 */
export class RevealCardMessage {
  @ValidateNested()
  @Type(() => RequestEnvelope)
  envelope: RequestEnvelope;

  @Matches(BINDING_ID)
  bindingId: string;

  @IsString()
  @Length(1, 4096)
  sealed: string;

  /**
   * The edge's deadline (OperationDeadline): the vault opens nothing once it has passed. A reveal
   * changes nothing; its answer is of use only while the edge still waits for it
   * (docs/decisions/operation-deadline.md, amendment on the last reads).
   */
  @OperationDeadline()
  deadline?: number;
}

export interface RevealCardReply {
  /** The full card number, when the sealed card holds one. */
  number?: string;
}

export interface SealCardReply {
  /** Opaque to everyone but the vault (authenticated encryption under a vault data key). */
  sealed: string;
  /** The sealed card as a session response may show it (number masked 6.4). */
  card: Partial<MaskedCard>;
  /** Whether the sealed card holds a security code (a response may say so, never show it). */
  securityCodePresent: boolean;
}

/**
 * The operations the vault calls an acquirer for: those that carry a card. CAPTURE and VOID
 * carry no card (they name the earlier transaction as the acquirer knows it), so the service
 * performing them calls the acquirer connector itself and never needs the vault.
 */
export const ACQUIRER_CALL_OPERATIONS = ['VERIFY', 'AUTHORIZE', 'PAY', 'REFUND'] as const;
export type AcquirerCallOperation = (typeof ACQUIRER_CALL_OPERATIONS)[number];

export class SealedCardReference {
  /** A `sealed` value from `token-vault.card.seal.v1`. */
  @IsString()
  @Length(1, 4096)
  value: string;

  /** The binding it was sealed with (the session id the operation names). */
  @Matches(BINDING_ID)
  bindingId: string;
}

export class AcquirerCallSource {
  /** A token of the merchant's repository (`sourceOfFunds.token`). */
  @IsOptional()
  @Matches(/^[0-9A-Za-z]{1,40}$/)
  token?: string;

  /** The card of the payment session the request names. */
  @IsOptional()
  @ValidateNested()
  @Type(() => SealedCardReference)
  sealed?: SealedCardReference;
}

/** `token-vault.acquirer.call.v1` */
export class AcquirerCallMessage {
  @ValidateNested()
  @Type(() => RequestEnvelope)
  envelope: RequestEnvelope;

  @IsIn(ACQUIRER_CALL_OPERATIONS)
  operation: AcquirerCallOperation;

  /** Where the card comes from; at least one of token and sealed. */
  @ValidateNested()
  @Type(() => AcquirerCallSource)
  source: AcquirerCallSource;

  /** Explicit values from the request, over the session's and the token's. */
  @IsOptional()
  @ValidateNested()
  @Type(() => ExplicitCardFields)
  explicit?: ExplicitCardFields;

  /**
   * The acquirer request without its card details, in the acquirer lib's wire form
   * (`ACQUIRER_WIRE[operation].encodeRequest`); `merchantId` must be the envelope's merchant.
   */
  @Verbatim()
  @IsObject()
  request: JsonObject;
}

export interface AcquirerCallReply {
  /** The acquirer's result in the acquirer lib's wire form (`ACQUIRER_WIRE[operation].decodeResult`; cards masked). */
  result: JsonObject;
  /** The card the vault completed and the acquirer was sent, masked. */
  card: MaskedCard;
}
