import {
  AlnumField,
  AsciiField,
  BooleanField,
  CrossFieldRules,
  CurrencyField,
  CustomFieldsField,
  DateField,
  DecInField,
  DigitValueField,
  DigitsField,
  EmailField,
  EnumField,
  FreeTextField,
  GroupArrayField,
  GroupField,
  StringField,
  UnlistedEnumField,
  UrlField,
} from '@gateway/api-fields';
import type { MerchantContext } from '../merchant-context';
import { OrderOperationRequestBase } from './order-operation-base';
import { refundAmountPositive, refundAmountsAnswerable, transactionTaxWithinAmount } from './request-rules';
import {
  AddressWithoutStateProvinceCode,
  ExternalTokenProvider,
  KeyedCard,
  LineItem,
  TransactionAcquirer,
} from './shared-groups';

/**
 * `apiOperation: REFUND` (spec version 29). Linked refunds name the original order and carry
 * no sourceOfFunds; standalone refunds carry one on a new order: both are the ledger's to
 * decide (they need state), as are refund limits.
 */

/**
 * Whether a REFUND waits for approval and is recorded as a REFUND_REQUEST
 * (docs/decisions/refund-rules.md): the merchant's refunds all need it, or the request asks for
 * it (`transaction.priorApproval` REQUESTED). The ledger plans a refund by it, and the edge names
 * the same type on a refund it refused with LOCK_FAILURE.
 */
export function refundNeedsApproval(merchant: Pick<MerchantContext, 'settings'>, priorApproval: unknown): boolean {
  return merchant.settings.privileges.refundRequiresApproval || priorApproval === 'REQUESTED';
}

export const CURRENCY_CONVERSION_UPTAKES = ['ACCEPTED', 'DECLINED', 'NOT_AVAILABLE', 'NOT_REQUIRED'] as const;
export const REFUND_POS_ATTENDED = ['ATTENDED', 'UNATTENDED', 'UNKNOWN_OR_UNSPECIFIED'] as const;
export const REFUND_POS_CARDHOLDER_ACTIVATED = ['NOT_CARDHOLDER_ACTIVATED', 'SELF_SERVICE_TERMINAL'] as const;
export const REFUND_POS_INPUT_CAPABILITIES = [
  'CHIP',
  'CHIP_AND_KEY_ENTRY_AND_MAGNETIC_STRIPE',
  'CHIP_AND_MAGNETIC_STRIPE',
  'CONTACTLESS_CHIP',
  'CONTACTLESS_MAGNETIC_STRIPE',
  'KEY_ENTRY',
  'KEY_ENTRY_AND_MAGNETIC_STRIPE',
  'MAGNETIC_STRIPE',
] as const;
export const REFUND_POS_LOCATIONS = ['OFF_CARD_ACCEPTOR_PREMISES', 'ON_CARD_ACCEPTOR_PREMISES'] as const;
export const SHIPPING_METHODS = ['ELECTRONIC', 'GROUND', 'OVERNIGHT', 'PRIORITY', 'SAME_DAY'] as const;
export const CARD_ACCOUNT_TYPES = ['CHECKING', 'SAVINGS'] as const;
export const TRANSACTION_SOURCES = [
  'CALL_CENTRE',
  'CARD_PRESENT',
  'INTERNET',
  'MAIL_ORDER',
  'MOTO',
  'TELEPHONE_ORDER',
  'VOICE_RESPONSE',
] as const;

export class RefundBilling {
  @GroupField(() => AddressWithoutStateProvinceCode)
  address?: AddressWithoutStateProvinceCode;
}

export class CurrencyConversionRequest {
  /** The DCC quote id; only used on the initial transaction. */
  @StringField(1, 100)
  requestId?: string;

  /** Default NOT_REQUIRED. */
  @EnumField(CURRENCY_CONVERSION_UPTAKES)
  uptake?: (typeof CURRENCY_CONVERSION_UPTAKES)[number];
}

export class RefundCustomer {
  @EmailField()
  email?: string;

  @StringField(1, 50)
  firstName?: string;

  @StringField(1, 50)
  lastName?: string;

  @StringField(1, 20)
  mobilePhone?: string;

  @StringField(1, 20)
  phone?: string;
}

export class RefundDevice {
  @StringField(1, 10)
  ani?: string;

  @StringField(1, 2)
  aniCallType?: string;

  @StringField(1, 255)
  browser?: string;

  @StringField(1, 4000)
  fingerprint?: string;

  @StringField(1, 60)
  hostname?: string;

  /** String(7-15): unlike token's and verify's, refund's ipAddress has no nnn.nnn.nnn.nnn form in the spec. */
  @StringField(7, 15)
  ipAddress?: string;
}

export class RefundOrder {
  /** Must be true where the acquirer supports partial approvals. */
  @BooleanField()
  acceptPartialAmount?: boolean;

  /** Up to 50 merchant fields, never sent to acquirers. */
  @CustomFieldsField()
  custom?: Record<string, string>;

  @FreeTextField(1, 250)
  customerNote?: string;

  @DateField()
  customerOrderDate?: string;

  @AsciiField(0, 25)
  customerReference?: string;

  /** https receiver of webhook notifications for this order. */
  @UrlField()
  notificationUrl?: string;

  @StringField(1, 15)
  productSKU?: string;

  @StringField(1, 40)
  reference?: string;

  @StringField(1, 100)
  requestorName?: string;

  @StringField(1, 20)
  taxRegistrationId?: string;

  @StringField(3, 3)
  walletIndicator?: string;

  @UnlistedEnumField()
  walletProvider?: string;
}

/** Card-present details; `name` is REQUIRED within posTerminal. */
export class RefundPosTerminal {
  @StringField(1, 8, { required: true })
  name: string;

  @EnumField(REFUND_POS_ATTENDED)
  attended?: (typeof REFUND_POS_ATTENDED)[number];

  @EnumField(REFUND_POS_CARDHOLDER_ACTIVATED)
  cardholderActivated?: (typeof REFUND_POS_CARDHOLDER_ACTIVATED)[number];

  /** Two digits of PAN entry mode, one of PIN entry mode. */
  @DigitsField(3, 3)
  entryMode?: string;

  @EnumField(REFUND_POS_INPUT_CAPABILITIES)
  inputCapability?: (typeof REFUND_POS_INPUT_CAPABILITIES)[number];

  @EnumField(REFUND_POS_LOCATIONS)
  location?: (typeof REFUND_POS_LOCATIONS)[number];
}

export class ShippingContact {
  @EmailField()
  email?: string;

  @StringField(1, 50)
  firstName?: string;

  @StringField(1, 50)
  lastName?: string;

  @StringField(1, 20)
  mobilePhone?: string;

  @StringField(1, 20)
  phone?: string;
}

/** Shipping as refund (and initiate browser payment) take it. */
export class Shipping {
  @GroupField(() => AddressWithoutStateProvinceCode)
  address?: AddressWithoutStateProvinceCode;

  @GroupField(() => ShippingContact)
  contact?: ShippingContact;

  @EnumField(SHIPPING_METHODS)
  method?: (typeof SHIPPING_METHODS)[number];
}

/** The keyed card's fields and those a refund to a card may add. */
export class RefundCard extends KeyedCard {
  @EnumField(CARD_ACCOUNT_TYPES)
  accountType?: (typeof CARD_ACCOUNT_TYPES)[number];

  /** EMV card sequence number. */
  @DigitValueField(0n, 999n)
  sequenceNumber?: string;

  @StringField(2, 79, { sensitive: true, label: 'Track 1 data' })
  track1?: string;

  @StringField(2, 40, { sensitive: true, label: 'Track 2 data' })
  track2?: string;
}

export class RefundProvidedSourceOfFunds {
  @GroupField(() => RefundCard)
  card?: RefundCard;
}

/** Only for standalone refunds (ARCHITECTURE 5): a linked refund must not carry it. */
export class RefundSourceOfFunds {
  @EnumField(['CARD'])
  type?: 'CARD';

  @AlnumField(1, 40)
  token?: string;

  @GroupField(() => RefundProvidedSourceOfFunds)
  provided?: RefundProvidedSourceOfFunds;
}

export class RefundTransaction {
  /** The amount to refund, in currency units; greater than zero. */
  @DecInField({ required: true })
  amount: string;

  @CurrencyField({ required: true })
  currency: string;

  @GroupField(() => TransactionAcquirer)
  acquirer?: TransactionAcquirer;

  @GroupArrayField(() => LineItem)
  item?: LineItem[];

  @FreeTextField(1, 250)
  merchantNote?: string;

  @EnumField(['REQUESTED'])
  priorApproval?: 'REQUESTED';

  @StringField(1, 40)
  reference?: string;

  @EnumField(TRANSACTION_SOURCES)
  source?: (typeof TRANSACTION_SOURCES)[number];

  /** The transaction to refund; when absent the ledger picks the single refundable one. */
  @StringField(1, 40)
  targetTransactionId?: string;

  @DecInField()
  taxAmount?: string;
}

@CrossFieldRules<RefundRequest>(refundAmountPositive, refundAmountsAnswerable, transactionTaxWithinAmount)
export class RefundRequest extends OrderOperationRequestBase {
  @EnumField(['REFUND'], { required: true })
  apiOperation: 'REFUND';

  @GroupField(() => RefundBilling)
  billing?: RefundBilling;

  @GroupField(() => CurrencyConversionRequest)
  currencyConversion?: CurrencyConversionRequest;

  @GroupField(() => RefundCustomer)
  customer?: RefundCustomer;

  @GroupField(() => RefundDevice)
  device?: RefundDevice;

  @GroupField(() => ExternalTokenProvider)
  externalTokenProvider?: ExternalTokenProvider;

  @GroupField(() => RefundOrder)
  order?: RefundOrder;

  @GroupField(() => RefundPosTerminal)
  posTerminal?: RefundPosTerminal;

  @GroupField(() => Shipping)
  shipping?: Shipping;

  @GroupField(() => RefundSourceOfFunds)
  sourceOfFunds?: RefundSourceOfFunds;

  @GroupField(() => RefundTransaction, { required: true })
  transaction: RefundTransaction;

  /** The person who initiated the refund. */
  @StringField(1, 256)
  userId?: string;
}
