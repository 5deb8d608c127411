import {
  AsciiField,
  CardNumberField,
  CustomDataField,
  DecInField,
  DigitValueField,
  DigitsField,
  ExpiryYearField,
  FreeTextField,
  GroupField,
  PostcodeZipField,
  SignedDecInField,
  StringField,
  Upper3Field,
} from '@gateway/api-fields';

/**
 * Groups several operations share (the spec's "Shared request fields", "Address group",
 * "Line item group" and "Tax breakdown"). Amounts are decimal strings, exactly as sent:
 * turn them into Money (libs/money) before any arithmetic.
 */

/** `responseControls` */
export class ResponseControls {
  /** How sensitive data is returned; UNMASK asks for unmasked numbers (needs permission and certificate auth). */
  @StringField(1, 50)
  sensitiveData?: string;
}

/** `session`: a payment session whose values fill the request's fields. */
export class SessionReference {
  @AsciiField(31, 35)
  id?: string;

  /** Optimistic lock: rejected when it differs from the stored session's version. */
  @AsciiField(10, 10)
  version?: string;
}

/** The Address group without `stateProvinceCode` (refund billing and shipping, posTerminal.address). */
export class AddressWithoutStateProvinceCode {
  @StringField(1, 100)
  city?: string;

  @StringField(1, 100)
  company?: string;

  /** ISO 3166 alpha-3. */
  @Upper3Field()
  country?: string;

  @PostcodeZipField()
  postcodeZip?: string;

  @StringField(1, 20)
  stateProvince?: string;

  @StringField(1, 100)
  street?: string;

  @StringField(1, 100)
  street2?: string;
}

/** The Address group with `stateProvinceCode` (token billing, verify billing). */
export class Address extends AddressWithoutStateProvinceCode {
  /** ISO 3166-2 subdivision code. */
  @StringField(1, 3)
  stateProvinceCode?: string;
}

/** `order.item[n]` / `transaction.item[n]` */
export class LineItem {
  @FreeTextField(1, 127, { required: true })
  name: string;

  /** A string of digits, 1 to 9999999999999999 (past a double's exact integers: use Money.times). */
  @DigitValueField(1n, 9999999999999999n, { required: true, label: 'Quantity' })
  quantity: string;

  /** May be negative (a discount line). */
  @SignedDecInField({ required: true })
  unitPrice: string;

  @SignedDecInField()
  unitTaxAmount?: string;

  @StringField(1, 127)
  brand?: string;

  @StringField(1, 127)
  category?: string;

  @FreeTextField(1, 127)
  description?: string;

  @StringField(1, 127)
  sku?: string;
}

/** `order.tax[n]` */
export class TaxBreakdown {
  @DecInField()
  amount?: string;

  @StringField(1, 50)
  type?: string;
}

/** `sourceOfFunds.provided.card.expiry`: month and year are REQUIRED within expiry. */
export class CardExpiry {
  /** "1" to "12" (leading zero allowed). */
  @DigitValueField(1n, 12n, { required: true, label: 'Month' })
  month: string;

  /** Two digits; the year is 2000 + value. */
  @ExpiryYearField({ required: true, label: 'Year' })
  year: string;
}

/**
 * `sourceOfFunds.provided.card` as the payer keys it in (number, expiry, security code, name):
 * what a payment session holds and what AUTHORIZE and PAY take.
 */
export class KeyedCard {
  @GroupField(() => CardExpiry)
  expiry?: CardExpiry;

  /**
   * Text written by a person, keyed beside the number, where a checkout form's mix-up or a
   * browser's autofill puts the number: refused like the notes (docs/decisions/card-numbers-in-free-text.md),
   * or it would be stored and shown in clear with the ledger's responses, the session and the token.
   */
  @FreeTextField(1, 256)
  nameOnCard?: string;

  /** Digits(9-19) passing the Luhn check: a number failing it reaches no acquirer, vault or session. */
  @CardNumberField({ sensitive: true, label: 'Card number' })
  number?: string;

  @DigitsField(3, 4, { sensitive: true, label: 'Security code' })
  securityCode?: string;
}

/** `sourceOfFunds.provided` holding a keyed card. */
export class ProvidedKeyedCard {
  @GroupField(() => KeyedCard)
  card?: KeyedCard;
}

/** `shipping.origin` */
export class ShippingOrigin {
  @PostcodeZipField()
  postcodeZip?: string;
}

/** `transaction.acquirer` */
export class TransactionAcquirer {
  /** Spec: "sensitive data is rejected": a card number in it is refused (CustomDataField). */
  @CustomDataField(1, 2048)
  customData?: string;
}

/** `externalTokenProvider` */
export class ExternalTokenProvider {
  /** Site code as JSON text; spec: "no sensitive data": a card number in it is refused. */
  @CustomDataField(1, 4000)
  customData?: string;
}
