import {
  AlnumField,
  AsciiField,
  Base64Field,
  BooleanField,
  CrossFieldRules,
  CurrencyField,
  CustomDataField,
  CustomFieldsField,
  DateField,
  DateTimeField,
  DecInField,
  DigitsField,
  EmailField,
  EnumField,
  FreeTextField,
  GroupArrayField,
  GroupField,
  IntField,
  JsonTextField,
  LetterField,
  ProtocolVersionField,
  StringField,
  TelField,
  UnlistedEnumField,
  Upper3Field,
  UrlField,
} from '@gateway/api-fields';
import { AVS_RESPONSE_CODES } from '../avs-response-codes';
import { OrderOperationRequestBase } from './order-operation-base';
import { RefundDevice, TRANSACTION_SOURCES } from './refund.request';
import { verifyAmountsAnswerable } from './request-rules';
import { Address, AddressWithoutStateProvinceCode, KeyedCard, ShippingOrigin } from './shared-groups';

/**
 * `apiOperation: VERIFY` (spec version 100). The spec shows part of this request; the fields it
 * does not show but a verification needs (order.currency, sourceOfFunds.type and token, the
 * card's security code, customer.middleName's bounds) are accepted as the real gateway does:
 * docs/decisions/verify-request-fields-beyond-the-spec.md.
 */

export const IDENTIFICATION_TYPES = [
  'ALIEN_REGISTRATION_NUMBER',
  'BUSINESS_TAX_ID',
  'COMPANY_REGISTRATION_NUMBER',
  'CUSTOMER_IDENTIFICATION',
  'DATE_OF_BIRTH',
  'DRIVERS_LICENSE',
  'EMAIL',
  'GOVERNMENT_ISSUED',
  'INDIVIDUAL_TAX_ID',
  'LAW_ENFORCEMENT_IDENTIFICATION',
  'MILITARY_IDENTIFICATION',
  'NATIONAL_IDENTIFICATION_CARD',
  'OTHER',
  'PASSPORT',
  'PHONE_NUMBER',
  'PROXY_IDENTIFICATION',
  'SOCIAL_SECURITY_NUMBER',
  'TRAVEL_IDENTIFICATION',
] as const;
export type IdentificationType = (typeof IDENTIFICATION_TYPES)[number];

export const ACCOUNT_FUNDING_PURPOSES = ['CRYPTOCURRENCY_PURCHASE', 'MERCHANT_SETTLEMENT', 'OTHER', 'PAYROLL'] as const;
export const ACCOUNT_FUNDING_SENDER_TYPES = ['COMMERCIAL_ORGANIZATION', 'GOVERNMENT', 'NON_PROFIT_ORGANIZATION', 'PERSON'] as const;
export const AGREEMENT_TYPES = ['INSTALLMENT', 'OTHER', 'RECURRING', 'UNSCHEDULED'] as const;
export const AMOUNT_VARIABILITIES = ['FIXED', 'VARIABLE'] as const;
export const PAYMENT_FREQUENCIES = ['AD_HOC', 'DAILY', 'FORTNIGHTLY', 'MONTHLY', 'OTHER', 'QUARTERLY', 'TWICE_YEARLY', 'WEEKLY', 'YEARLY'] as const;
export const TAX_STATUSES = ['EXEMPT', 'NOT_EXEMPT', 'NOT_PROVIDED'] as const;
export { AVS_RESPONSE_CODES } from '../avs-response-codes';
export const AVS_ACTIONS = ['NO_ACTION', 'REJECT', 'REVIEW'] as const;
export const VERIFY_POS_ATTENDED = ['ATTENDED', 'SEMI_ATTENDED', 'UNATTENDED', 'UNKNOWN_OR_UNSPECIFIED'] as const;
export const CARD_PRESENCE_CAPABILITIES = ['CARD_NOT_PRESENT', 'CARD_PRESENT', 'CARD_PRESENT_AND_CARD_NOT_PRESENT'] as const;
export const VERIFY_POS_CARDHOLDER_ACTIVATED = [
  'AUTOMATED_DISPENSING_MACHINE_WITH_PIN',
  'ELECTRONIC_COMMERCE',
  'IN_FLIGHT_COMMERCE',
  'LIMITED_AMOUNT_TERMINAL',
  'MPOS_ACCEPTANCE_DEVICE',
  'NOT_CARDHOLDER_ACTIVATED',
  'SELF_SERVICE_TERMINAL',
  'TRANSPONDER_TRANSACTION',
] as const;
export const VERIFY_POS_INPUT_CAPABILITIES = [
  'BARCODE',
  'CHIP',
  'CHIP_AND_KEY_ENTRY_AND_MAGNETIC_STRIPE',
  'CHIP_AND_KEY_ENTRY_AND_MAGNETIC_STRIPE_AND_RFID',
  'CHIP_AND_MAGNETIC_STRIPE',
  'CONTACTLESS_CHIP',
  'CONTACTLESS_MAGNETIC_STRIPE',
  'CONTACTLESS_OR_MAGNETIC_STRIPE',
  'KEY_ENTRY',
  'KEY_ENTRY_AND_MAGNETIC_STRIPE',
  'MAGNETIC_STRIPE',
  'UNKNOWN',
  'VOICE_AUDIO_RESPONSE',
] as const;
export const VERIFY_POS_LOCATIONS = [
  'MERCHANT_TERMINAL_OFF_PREMISES',
  'MERCHANT_TERMINAL_ON_PREMISES',
  'NO_TERMINAL_VOICE_OR_AUDIO_RESPONSE',
  'PAYER_TERMINAL_OFF_PREMISES',
  'PAYER_TERMINAL_ON_PREMISES',
] as const;
export const CARD_INPUT_DEVICES = ['BUILT_IN', 'INTEGRATED_DONGLE', 'SEPARATE_DONGLE'] as const;
export const ONLINE_REASON_CODES = [
  'CHIP_APPLICATION_DATA_FILE_ERROR',
  'CHIP_COMMON_DATA_FILE_ERROR',
  'FORCED_BY_CHIP',
  'FORCED_BY_ISSUER',
  'FORCED_BY_MERCHANT',
  'FORCED_BY_TERMINAL',
  'MERCHANT_SUSPICIOUS',
  'OVER_FLOOR_LIMIT',
  'RANDOM_SELECTION_BY_TERMINAL',
  'UNABLE_TO_PROCESS_CHIP',
] as const;
export const PAN_ENTRY_MODES = [
  'BARCODE_READER',
  'CHIP',
  'CHIP_FALLBACK',
  'CONTACTLESS',
  'ECOMMERCE',
  'KEYED',
  'MOBILE_COMMERCE',
  'OPTICAL_CHARACTER_READER',
  'RFID_CHIP',
  'RFID_STRIPE',
  'SWIPE',
  'SWIPE_WITH_SIGNATURE',
  'UNKNOWN',
  'VOICE_AUTHORIZATION',
  'VOICE_RESPONSE',
] as const;
export const PIN_ENTRY_CAPABILITIES = [
  'OFFLINE_PIN_ONLY',
  'PIN_NOT_SUPPORTED',
  'PIN_PAD_INOPERATIVE',
  'PIN_SUPPORTED',
  'SOFTWARE_ONLINE_PIN_ONLY',
  'UNKNOWN',
] as const;
export const ADDRESS_SOURCES = ['ADDRESS_ON_FILE', 'NEW_ADDRESS'] as const;
export const SAME_AS_BILLING = ['DIFFERENT', 'SAME', 'UNKNOWN'] as const;
export const VERIFY_SHIPPING_METHODS = ['ELECTRONIC', 'GROUND', 'NOT_SHIPPED', 'OVERNIGHT', 'PICKUP', 'PRIORITY', 'SAME_DAY'] as const;

// accountFunding ------------------------------------------------------------------------------

export class RecipientAddress {
  @StringField(1, 100)
  city?: string;

  @Upper3Field()
  country?: string;

  /** Spelled postCodeZip in this group, and a plain String(1-10). */
  @StringField(1, 10)
  postCodeZip?: string;

  /** US: 2-letter code (military AE, AA, AP); Canada: 2-letter province code. */
  @StringField(1, 3)
  stateProvinceCode?: string;

  @StringField(1, 100)
  street?: string;

  @StringField(1, 100)
  street2?: string;
}

export class Identification {
  @Upper3Field()
  country?: string;

  @EnumField(IDENTIFICATION_TYPES)
  type?: IdentificationType;

  @StringField(1, 50)
  value?: string;
}

export class AccountFundingRecipient {
  @StringField(1, 50)
  firstName?: string;

  @StringField(1, 50)
  middleName?: string;

  @StringField(1, 50)
  lastName?: string;

  @GroupField(() => RecipientAddress)
  address?: RecipientAddress;

  @GroupField(() => Identification)
  identification?: Identification;
}

/** For order.purchaseType ACCOUNT_FUNDING. */
export class AccountFunding {
  /** Default OTHER. */
  @EnumField(ACCOUNT_FUNDING_PURPOSES)
  purpose?: (typeof ACCOUNT_FUNDING_PURPOSES)[number];

  /** Default false. */
  @BooleanField()
  senderIsRecipient?: boolean;

  @EnumField(ACCOUNT_FUNDING_SENDER_TYPES)
  senderType?: (typeof ACCOUNT_FUNDING_SENDER_TYPES)[number];

  @GroupField(() => AccountFundingRecipient)
  recipient?: AccountFundingRecipient;
}

// agreement -----------------------------------------------------------------------------------

export class AgreementRetailer {
  @StringField(1, 10)
  abbreviatedTradingName?: string;

  @StringField(1, 4)
  merchantCategoryCode?: string;

  @StringField(1, 100)
  tradingName?: string;
}

/** Links the orders of one commercial agreement (recurring, installment, unscheduled). */
export class Agreement {
  @StringField(1, 100)
  id?: string;

  /** Default OTHER; give it on the first payment of the series. */
  @EnumField(AGREEMENT_TYPES)
  type?: (typeof AGREEMENT_TYPES)[number];

  @EnumField(AMOUNT_VARIABILITIES)
  amountVariability?: (typeof AMOUNT_VARIABILITIES)[number];

  /** Spec: "no sensitive data": a card number in it is refused. */
  @CustomDataField(1, 2048)
  customData?: string;

  @DateField()
  expiryDate?: string;

  /** Not in the past: checked by verification, which knows the merchant's day. */
  @DateField()
  startDate?: string;

  /** In the order currency. */
  @DecInField()
  maximumAmountPerPayment?: string;

  /** In the order currency. */
  @DecInField()
  minimumAmountPerPayment?: string;

  @IntField(1, 9999)
  minimumDaysBetweenPayments?: number;

  @IntField(1, 999)
  numberOfPayments?: number;

  @EnumField(PAYMENT_FREQUENCIES)
  paymentFrequency?: (typeof PAYMENT_FREQUENCIES)[number];

  @GroupField(() => AgreementRetailer)
  retailer?: AgreementRetailer;
}

// authentication (by another 3-D Secure provider) ---------------------------------------------

export class ThreeDsAuthentication {
  @AlnumField(1, 2)
  acsEci?: string;

  /** The authentication value (CAVV/AAV): treated as sensitive, never echoed. */
  @Base64Field({ exactly: [28, 32] }, { sensitive: true })
  authenticationToken?: string;

  /** XID in base64 for version 1; directory server id for version 2. */
  @StringField(1, 50)
  transactionId?: string;
}

export class ThreeDs2Authentication {
  @StringField(0, 32)
  acsReference?: string;

  @StringField(36, 36)
  acsTransactionId?: string;

  /** Scheme names are not shown in the spec. */
  @UnlistedEnumField()
  authenticationScheme?: string;

  @JsonTextField(1, 4000)
  custom?: string;

  @StringField(0, 32)
  dsReference?: string;

  @ProtocolVersionField()
  protocolVersion?: string;

  @StringField(2, 2)
  statusReasonCode?: string;

  @LetterField()
  transactionStatus?: string;
}

export class ExternalAuthentication {
  @GroupField(() => ThreeDsAuthentication)
  '3ds'?: ThreeDsAuthentication;

  @GroupField(() => ThreeDs2Authentication)
  '3ds2'?: ThreeDs2Authentication;

  @DecInField()
  amount?: string;

  @DateTimeField()
  time?: string;

  /** The id used for the Initiate Authentication operation, when the gateway authenticated. */
  @StringField(1, 40)
  transactionId?: string;
}

// billing, customer, order --------------------------------------------------------------------

export class VerifyBilling {
  @GroupField(() => Address)
  address?: Address;
}

export class VerifyCustomer {
  @EmailField()
  email?: string;

  @StringField(1, 50)
  firstName?: string;

  /** Bounds not shown in the spec: as firstName and lastName. */
  @StringField(1, 50)
  middleName?: string;

  @StringField(1, 50)
  lastName?: string;

  /** Identifies the sender in account funding. */
  @GroupField(() => Identification)
  identification?: Identification;

  /** Not shown in the spec's visible part of verify; as refund's. */
  @StringField(1, 20)
  mobilePhone?: string;

  /** Not shown in the spec's visible part of verify; as refund's. */
  @StringField(1, 20)
  phone?: string;
}

export class AvsResponseCodeRuleRequest {
  @EnumField(AVS_ACTIONS, { required: true })
  action: (typeof AVS_ACTIONS)[number];

  @EnumField(AVS_RESPONSE_CODES, { required: true })
  avsResponseCode: (typeof AVS_RESPONSE_CODES)[number];
}

/** Overrides the AVS rules configured for the merchant. */
export class TransactionFilteringRequest {
  @GroupArrayField(() => AvsResponseCodeRuleRequest)
  avsResponseCodeRules?: AvsResponseCodeRuleRequest[];
}

/**
 * `order` of VERIFY. The fields before taxRegistrationId are not shown in the spec's visible
 * part; those a merchant sends on every order operation are accepted with the types the spec
 * gives them on refund and initiate (docs/decisions/verify-request-fields-beyond-the-spec.md).
 */
export class VerifyOrder {
  /** REQUIRED as on the real gateway (amounts and the acquirer need it). */
  @CurrencyField({ required: true })
  currency: string;

  /** Up to 50 merchant fields, never sent to acquirers. */
  @CustomFieldsField()
  custom?: Record<string, string>;

  @FreeTextField(1, 250)
  customerNote?: string;

  @DateField()
  customerOrderDate?: string;

  @AsciiField(0, 25)
  customerReference?: string;

  @FreeTextField(1, 127)
  description?: string;

  @UrlField()
  notificationUrl?: string;

  /**
   * What is bought; ACCOUNT_FUNDING marks an account funding transaction, the one value the
   * spec names (accountFunding is "for order.purchaseType=ACCOUNT_FUNDING"). The spec shows
   * no other value, so any enumeration-shaped value is taken, as for walletProvider. Neither
   * it nor accountFunding requires the other: the spec says neither is required.
   */
  @UnlistedEnumField()
  purchaseType?: string;

  @StringField(1, 40)
  reference?: string;

  @StringField(1, 100)
  requestorName?: string;

  @StringField(1, 30)
  taxRegistrationId?: string;

  @EnumField(TAX_STATUSES)
  taxStatus?: (typeof TAX_STATUSES)[number];

  @GroupField(() => TransactionFilteringRequest)
  transactionFiltering?: TransactionFilteringRequest;

  @StringField(3, 3)
  walletIndicator?: string;

  @UnlistedEnumField()
  walletProvider?: string;
}

// posTerminal ---------------------------------------------------------------------------------

export class PosTerminalMobile {
  @EnumField(CARD_INPUT_DEVICES)
  cardInputDevice?: (typeof CARD_INPUT_DEVICES)[number];
}

export class PosTerminalStore {
  @StringField(1, 255)
  id?: string;

  @StringField(1, 255)
  name?: string;
}

export class VerifyPosTerminal {
  @GroupField(() => AddressWithoutStateProvinceCode)
  address?: AddressWithoutStateProvinceCode;

  /** EMV 9F35; required for chip transactions with UK acquirers. */
  @EnumField(VERIFY_POS_ATTENDED)
  attended?: (typeof VERIFY_POS_ATTENDED)[number];

  @EnumField(CARD_PRESENCE_CAPABILITIES)
  cardPresenceCapability?: (typeof CARD_PRESENCE_CAPABILITIES)[number];

  @EnumField(VERIFY_POS_CARDHOLDER_ACTIVATED)
  cardholderActivated?: (typeof VERIFY_POS_CARDHOLDER_ACTIVATED)[number];

  /** EMV 9F33. */
  @EnumField(VERIFY_POS_INPUT_CAPABILITIES)
  inputCapability?: (typeof VERIFY_POS_INPUT_CAPABILITIES)[number];

  /** EMV 9F1C. */
  @StringField(1, 8)
  lane?: string;

  @EnumField(VERIFY_POS_LOCATIONS)
  location?: (typeof VERIFY_POS_LOCATIONS)[number];

  @GroupField(() => PosTerminalMobile)
  mobile?: PosTerminalMobile;

  @EnumField(ONLINE_REASON_CODES)
  onlineReasonCode?: (typeof ONLINE_REASON_CODES)[number];

  @EnumField(PAN_ENTRY_MODES)
  panEntryMode?: (typeof PAN_ENTRY_MODES)[number];

  @EnumField(PIN_ENTRY_CAPABILITIES)
  pinEntryCapability?: (typeof PIN_ENTRY_CAPABILITIES)[number];

  @IntField(4, 12)
  pinLengthCapability?: number;

  @AsciiField(1, 16)
  serialNumber?: string;

  @GroupField(() => PosTerminalStore)
  store?: PosTerminalStore;
}

// shipping ------------------------------------------------------------------------------------

export class VerifyShippingAddress extends Address {
  @EnumField(ADDRESS_SOURCES)
  source?: (typeof ADDRESS_SOURCES)[number];

  /** Derived when absent: SAME, DIFFERENT or UNKNOWN. */
  @EnumField(SAME_AS_BILLING)
  sameAsBilling?: (typeof SAME_AS_BILLING)[number];
}

export class VerifyShippingContact {
  @EmailField()
  email?: string;

  @StringField(1, 50)
  firstName?: string;

  @StringField(1, 50)
  lastName?: string;

  @TelField()
  mobilePhone?: string;

  @TelField()
  phone?: string;
}

export class VerifyShipping {
  @GroupField(() => VerifyShippingAddress)
  address?: VerifyShippingAddress;

  @GroupField(() => VerifyShippingContact)
  contact?: VerifyShippingContact;

  @EnumField(VERIFY_SHIPPING_METHODS)
  method?: (typeof VERIFY_SHIPPING_METHODS)[number];

  @GroupField(() => ShippingOrigin)
  origin?: ShippingOrigin;
}

// sourceOfFunds -------------------------------------------------------------------------------

export class DevicePayment {
  @DigitsField(1, 2)
  eciIndicator?: string;

  /** A cryptogram: never echoed. */
  @Base64Field({ min: 1, max: 200 }, { sensitive: true })
  onlinePaymentCryptogram?: string;
}

/**
 * The keyed card's fields (number: a PAN, DPAN or scheme token PAN; securityCode: not in the
 * spec's visible part, the test acquirer's CSC results need it) and VERIFY's own.
 */
export class VerifyCard extends KeyedCard {
  /** For co-branded cards. */
  @StringField(3, 50)
  cardType?: string;

  @GroupField(() => DevicePayment)
  devicePayment?: DevicePayment;

  /** EMV fields from the terminal; may hold the PAN (tag 5A), so never echoed. */
  @StringField(1, 250, { sensitive: true, label: 'EMV request' })
  emvRequest?: string;
}

export class VerifyProvidedSourceOfFunds {
  @GroupField(() => VerifyCard)
  card?: VerifyCard;
}

export class VerifySourceOfFunds {
  /** Not shown in the spec's visible part: CARD, as on every card operation. */
  @EnumField(['CARD'])
  type?: 'CARD';

  /** Not shown in the spec's visible part: a stored token instead of (or completing) card details. */
  @AlnumField(1, 40)
  token?: string;

  @GroupField(() => VerifyProvidedSourceOfFunds)
  provided?: VerifyProvidedSourceOfFunds;
}

/**
 * `transaction` of VERIFY: not shown in the spec's visible part; descriptive only (a
 * verification moves no money), with the types the spec gives these fields on refund.
 */
export class VerifyTransaction {
  @FreeTextField(1, 250)
  merchantNote?: string;

  @StringField(1, 40)
  reference?: string;

  @EnumField(TRANSACTION_SOURCES)
  source?: (typeof TRANSACTION_SOURCES)[number];
}

@CrossFieldRules<VerifyRequest>(verifyAmountsAnswerable)
export class VerifyRequest extends OrderOperationRequestBase {
  @EnumField(['VERIFY'], { required: true })
  apiOperation: 'VERIFY';

  @GroupField(() => AccountFunding)
  accountFunding?: AccountFunding;

  @GroupField(() => Agreement)
  agreement?: Agreement;

  @GroupField(() => ExternalAuthentication)
  authentication?: ExternalAuthentication;

  @GroupField(() => VerifyBilling)
  billing?: VerifyBilling;

  @GroupField(() => VerifyCustomer)
  customer?: VerifyCustomer;

  /** Not shown in the spec's visible part of verify; as refund's. */
  @GroupField(() => RefundDevice)
  device?: RefundDevice;

  @GroupField(() => VerifyOrder, { required: true })
  order: VerifyOrder;

  @GroupField(() => VerifyPosTerminal)
  posTerminal?: VerifyPosTerminal;

  @GroupField(() => VerifyShipping)
  shipping?: VerifyShipping;

  @GroupField(() => VerifySourceOfFunds, { required: true })
  sourceOfFunds: VerifySourceOfFunds;

  @GroupField(() => VerifyTransaction)
  transaction?: VerifyTransaction;
}
