import {
  AlnumField,
  AsciiField,
  BooleanField,
  CrossFieldRules,
  CurrencyField,
  DateField,
  DecInField,
  EnumField,
  FreeTextField,
  GroupArrayField,
  GroupField,
  StringField,
  UnlistedEnumField,
} from '@gateway/api-fields';
import { BrowserPaymentOrderBase } from './browser-payment.requests';
import { OrderOperationRequestBase } from './order-operation-base';
import { RefundCustomer, RefundDevice, Shipping, TRANSACTION_SOURCES } from './refund.request';
import {
  capturableAmountPositive,
  captureAmountsAnswerable,
  cardPaymentAmountConsistency,
  cardPaymentAmountPositive,
  cardPaymentAmountsAnswerable,
  transactionTaxWithinAmount,
} from './request-rules';
import { Address, LineItem, ProvidedKeyedCard, TransactionAcquirer } from './shared-groups';
import { Agreement, ExternalAuthentication } from './verify.request';

/**
 * `apiOperation` AUTHORIZE, PAY, CAPTURE and VOID: the spec names them "by name only"
 * (Endpoints rule 2), so their fields are our extension of it (docs/api-extensions.md), taken
 * from the real gateway's documented fields for these operations and built from the groups the
 * spec does show (order as in initiate browser payment, billing with stateProvinceCode as in
 * verify, customer, device and shipping as in refund, agreement and authentication as in
 * verify). AUTHORIZE and PAY carry the amount in `order.amount`/`order.currency`, as on the
 * real gateway; CAPTURE carries it in `transaction.amount`/`transaction.currency`; VOID carries
 * none (it undoes its target whole).
 */

export const TRANSACTION_FREQUENCIES = ['INSTALLMENT', 'RECURRING', 'SINGLE'] as const;

/** `order` of AUTHORIZE and PAY: the amount to authorise (or pay) and what the order holds. */
export class CardPaymentOrder extends BrowserPaymentOrderBase {
  @DecInField({ required: true })
  amount: string;

  @CurrencyField({ required: true })
  currency: string;

  /** The merchant accepts an approval for less than order.amount (PARTIALLY_APPROVED). */
  @BooleanField()
  acceptPartialAmount?: boolean;

  @DateField()
  customerOrderDate?: string;

  @AsciiField(0, 25)
  customerReference?: string;

  @StringField(1, 15)
  productSKU?: string;

  @StringField(1, 100)
  requestorName?: string;

  @StringField(1, 20)
  taxRegistrationId?: string;

  @StringField(3, 3)
  walletIndicator?: string;

  @UnlistedEnumField()
  walletProvider?: string;
}

export class CardPaymentBilling {
  @GroupField(() => Address)
  address?: Address;
}

/**
 * The card: explicit (`provided.card`), a stored `token`, or the named session's card; they
 * combine explicit > session > token (spec session rules) and must make a complete card
 * (number and expiry), which the order-transaction service checks (a session's card is sealed).
 */
export class CardPaymentSourceOfFunds {
  @EnumField(['CARD'])
  type?: 'CARD';

  @AlnumField(1, 40)
  token?: string;

  @GroupField(() => ProvidedKeyedCard)
  provided?: ProvidedKeyedCard;
}

/** `transaction` of AUTHORIZE and PAY: descriptive only, the amount is the order's. */
export class CardPaymentTransaction {
  @GroupField(() => TransactionAcquirer)
  acquirer?: TransactionAcquirer;

  @EnumField(TRANSACTION_FREQUENCIES)
  frequency?: (typeof TRANSACTION_FREQUENCIES)[number];

  @FreeTextField(1, 250)
  merchantNote?: string;

  @StringField(1, 40)
  reference?: string;

  @EnumField(TRANSACTION_SOURCES)
  source?: (typeof TRANSACTION_SOURCES)[number];
}

abstract class CardPaymentRequestBase extends OrderOperationRequestBase {
  @GroupField(() => Agreement)
  agreement?: Agreement;

  @GroupField(() => ExternalAuthentication)
  authentication?: ExternalAuthentication;

  @GroupField(() => CardPaymentBilling)
  billing?: CardPaymentBilling;

  @GroupField(() => RefundCustomer)
  customer?: RefundCustomer;

  @GroupField(() => RefundDevice)
  device?: RefundDevice;

  @GroupField(() => CardPaymentOrder, { required: true })
  order: CardPaymentOrder;

  @GroupField(() => Shipping)
  shipping?: Shipping;

  /** Optional here: a request naming a session may take its card from the session alone. */
  @GroupField(() => CardPaymentSourceOfFunds)
  sourceOfFunds?: CardPaymentSourceOfFunds;

  @GroupField(() => CardPaymentTransaction)
  transaction?: CardPaymentTransaction;
}

/** `apiOperation: AUTHORIZE`: reserves order.amount on the card; a CAPTURE moves the funds. */
@CrossFieldRules<AuthorizeRequest>(cardPaymentAmountPositive, cardPaymentAmountsAnswerable, cardPaymentAmountConsistency)
export class AuthorizeRequest extends CardPaymentRequestBase {
  @EnumField(['AUTHORIZE'], { required: true })
  apiOperation: 'AUTHORIZE';
}

/** `apiOperation: PAY`: authorisation and capture in one. */
@CrossFieldRules<PayRequest>(cardPaymentAmountPositive, cardPaymentAmountsAnswerable, cardPaymentAmountConsistency)
export class PayRequest extends CardPaymentRequestBase {
  @EnumField(['PAY'], { required: true })
  apiOperation: 'PAY';
}

export type CardPaymentRequest = AuthorizeRequest | PayRequest;

export class CaptureTransaction {
  /** The amount to capture; at most what is left of the authorisation. */
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

  @StringField(1, 40)
  reference?: string;

  /** The authorisation to capture; when absent the ledger picks the single one with something left. */
  @StringField(1, 40)
  targetTransactionId?: string;

  @DecInField()
  taxAmount?: string;
}

/** `order` of CAPTURE and VOID: only what may change on an existing order. */
export class FollowOnOrder {
  @FreeTextField(1, 250)
  customerNote?: string;

  @StringField(1, 40)
  reference?: string;
}

/** `apiOperation: CAPTURE` of an earlier AUTHORIZE on the same order. */
@CrossFieldRules<CaptureRequest>(capturableAmountPositive, captureAmountsAnswerable, transactionTaxWithinAmount)
export class CaptureRequest extends OrderOperationRequestBase {
  @EnumField(['CAPTURE'], { required: true })
  apiOperation: 'CAPTURE';

  @GroupField(() => FollowOnOrder)
  order?: FollowOnOrder;

  @GroupField(() => CaptureTransaction, { required: true })
  transaction: CaptureTransaction;

  @StringField(1, 256)
  userId?: string;
}

export class VoidTransaction {
  /** The authorisation, capture, payment or refund of this order to void. */
  @StringField(1, 40, { required: true })
  targetTransactionId: string;

  @GroupField(() => TransactionAcquirer)
  acquirer?: TransactionAcquirer;

  @FreeTextField(1, 250)
  merchantNote?: string;

  @StringField(1, 40)
  reference?: string;
}

/** `apiOperation: VOID`: undoes an earlier transaction of the order whole. */
export class VoidRequest extends OrderOperationRequestBase {
  @EnumField(['VOID'], { required: true })
  apiOperation: 'VOID';

  @GroupField(() => FollowOnOrder)
  order?: FollowOnOrder;

  @GroupField(() => VoidTransaction, { required: true })
  transaction: VoidTransaction;

  @StringField(1, 256)
  userId?: string;
}
