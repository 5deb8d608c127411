import {
  BooleanField,
  CrossFieldRules,
  CurrencyField,
  CustomFieldsField,
  DecInField,
  DigitsField,
  EmailField,
  EnumField,
  FreeTextField,
  GroupArrayField,
  GroupField,
  StringField,
  UrlField,
} from '@gateway/api-fields';
import { OrderOperationRequestBase } from './order-operation-base';
import { Shipping } from './refund.request';
import {
  amountConsistency,
  browserPaymentAmountsAnswerable,
  confirmAmountConsistency,
  confirmAmountPositive,
  initiateAmountPositive,
  providerBBankIdentifier,
} from './request-rules';
import { LineItem, TaxBreakdown } from './shared-groups';

/**
 * `apiOperation: INITIATE_BROWSER_PAYMENT` (spec version 32) and `CONFIRM_BROWSER_PAYMENT`
 * (version 30). Both check the amount consistency rules on the amounts they carry; a confirm
 * that changes only some amounts is checked against the initiate by browser-payment.
 */

export const BROWSER_PAYMENT_SOURCE_OF_FUNDS_TYPES = ['PROVIDER_B', 'PROVIDER_A', 'PROVIDER_C'] as const;
export const PROVIDER_A_OPERATIONS = ['AUTHORIZE', 'PAY'] as const;
export const PAYMENT_CONFIRMATIONS = ['CONFIRM_AT_MERCHANT', 'CONFIRM_AT_PROVIDER'] as const;

export class BrowserPaymentProviderA {
  /** AUTHORIZE needs a later CAPTURE; PAY moves funds. */
  @EnumField(PROVIDER_A_OPERATIONS, { required: true })
  operation: (typeof PROVIDER_A_OPERATIONS)[number];

  /** CONFIRM_AT_MERCHANT requires CONFIRM_BROWSER_PAYMENT after the payer returns. */
  @EnumField(PAYMENT_CONFIRMATIONS, { required: true })
  paymentConfirmation: (typeof PAYMENT_CONFIRMATIONS)[number];

  /** Default: the address is displayed. */
  @BooleanField()
  displayShippingAddress?: boolean;

  /** Default: the payer may change the address. */
  @BooleanField()
  overrideShippingAddress?: boolean;
}

export class BrowserPaymentRequestGroup {
  /** Where the browser goes after the provider, whatever the outcome. */
  @UrlField({ required: true })
  returnUrl: string;

  @GroupField(() => BrowserPaymentProviderA)
  provider_a?: BrowserPaymentProviderA;
}

/** The order fields initiate and confirm share; amounts follow the amount consistency rules. */
export abstract class BrowserPaymentOrderBase {
  @CustomFieldsField()
  custom?: Record<string, string>;

  @FreeTextField(1, 250)
  customerNote?: string;

  /** Shown to the payer at the provider. */
  @FreeTextField(1, 127)
  description?: string;

  @GroupArrayField(() => LineItem)
  item?: LineItem[];

  @DecInField()
  itemAmount?: string;

  @UrlField()
  notificationUrl?: string;

  @StringField(1, 40)
  reference?: string;

  @DecInField()
  shippingAndHandlingAmount?: string;

  @GroupArrayField(() => TaxBreakdown)
  tax?: TaxBreakdown[];

  @DecInField()
  taxAmount?: string;

  abstract amount?: string;
  abstract currency?: string;
}

export class InitiateBrowserPaymentOrder extends BrowserPaymentOrderBase {
  @DecInField({ required: true })
  amount: string;

  @CurrencyField({ required: true })
  currency: string;
}

/** Amount and line items may change on confirm; the currency may not (browser-payment checks). */
export class ConfirmBrowserPaymentOrder extends BrowserPaymentOrderBase {
  @DecInField()
  amount?: string;

  @CurrencyField()
  currency?: string;
}

export class CustomerEmail {
  @EmailField()
  email?: string;
}

export class ProviderBDetails {
  /** The payer's German bank identifier. */
  @DigitsField(8, 8, { required: true })
  bankIdentifier: string;
}

export class BrowserPaymentProvidedSourceOfFunds {
  @GroupField(() => ProviderBDetails)
  provider_b?: ProviderBDetails;
}

export class BrowserPaymentSourceOfFunds {
  @EnumField(BROWSER_PAYMENT_SOURCE_OF_FUNDS_TYPES, { required: true })
  type: (typeof BROWSER_PAYMENT_SOURCE_OF_FUNDS_TYPES)[number];

  @GroupField(() => BrowserPaymentProvidedSourceOfFunds)
  provided?: BrowserPaymentProvidedSourceOfFunds;
}

export class BrowserPaymentTransaction {
  @FreeTextField(1, 250)
  merchantNote?: string;

  @StringField(1, 40)
  reference?: string;
}

@CrossFieldRules<InitiateBrowserPaymentRequest>(
  initiateAmountPositive,
  browserPaymentAmountsAnswerable,
  amountConsistency,
  providerBBankIdentifier,
)
export class InitiateBrowserPaymentRequest extends OrderOperationRequestBase {
  @EnumField(['INITIATE_BROWSER_PAYMENT'], { required: true })
  apiOperation: 'INITIATE_BROWSER_PAYMENT';

  @GroupField(() => BrowserPaymentRequestGroup, { required: true })
  browserPayment: BrowserPaymentRequestGroup;

  @GroupField(() => CustomerEmail)
  customer?: CustomerEmail;

  @GroupField(() => InitiateBrowserPaymentOrder, { required: true })
  order: InitiateBrowserPaymentOrder;

  @GroupField(() => Shipping)
  shipping?: Shipping;

  @GroupField(() => BrowserPaymentSourceOfFunds, { required: true })
  sourceOfFunds: BrowserPaymentSourceOfFunds;

  @GroupField(() => BrowserPaymentTransaction)
  transaction?: BrowserPaymentTransaction;
}

@CrossFieldRules<ConfirmBrowserPaymentRequest>(confirmAmountPositive, browserPaymentAmountsAnswerable, confirmAmountConsistency)
export class ConfirmBrowserPaymentRequest extends OrderOperationRequestBase {
  @EnumField(['CONFIRM_BROWSER_PAYMENT'], { required: true })
  apiOperation: 'CONFIRM_BROWSER_PAYMENT';

  @GroupField(() => CustomerEmail)
  customer?: CustomerEmail;

  @GroupField(() => ConfirmBrowserPaymentOrder)
  order?: ConfirmBrowserPaymentOrder;

  @GroupField(() => BrowserPaymentTransaction)
  transaction?: BrowserPaymentTransaction;
}
