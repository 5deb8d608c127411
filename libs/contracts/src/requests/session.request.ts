import {
  AlnumField,
  AsciiField,
  CurrencyField,
  DecInField,
  EmailField,
  EnumField,
  FreeTextField,
  GroupArrayField,
  GroupField,
  IpAddressField,
  StringField,
} from '@gateway/api-fields';
import { BrowserPaymentOrderBase } from './browser-payment.requests';
import { ShippingContact, TRANSACTION_SOURCES } from './refund.request';
import { Address, LineItem, ProvidedKeyedCard, TaxBreakdown } from './shared-groups';

/**
 * `POST .../session` and `PUT .../session/{sessionid}` (beyond the five operations, as the real
 * gateway has them; docs/sessions.md): the values a payment session holds until an operation
 * names it. Each field has the loosest type any operation gives it; when an operation uses the
 * session, the filled request is validated again as a whole with that operation's class.
 * Card details are sealed by the vault and never kept by the edge.
 */
export const SESSION_SOURCE_OF_FUNDS_TYPES = ['CARD', 'PROVIDER_A', 'PROVIDER_B', 'PROVIDER_C'] as const;
export const SESSION_SHIPPING_METHODS = ['ELECTRONIC', 'GROUND', 'NOT_SHIPPED', 'OVERNIGHT', 'PICKUP', 'PRIORITY', 'SAME_DAY'] as const;

/** `session` in a session update: only the optimistic lock (the id is the path's). */
export class SessionUpdateReference {
  @AsciiField(10, 10)
  version?: string;
}

export class SessionOrder extends BrowserPaymentOrderBase {
  @DecInField()
  amount?: string;

  @CurrencyField()
  currency?: string;

  @AsciiField(0, 25)
  customerReference?: string;
}

export class SessionTransaction {
  @DecInField()
  amount?: string;

  @CurrencyField()
  currency?: string;

  @GroupArrayField(() => LineItem)
  item?: LineItem[];

  @FreeTextField(1, 250)
  merchantNote?: string;

  @StringField(1, 40)
  reference?: string;

  @EnumField(TRANSACTION_SOURCES)
  source?: (typeof TRANSACTION_SOURCES)[number];

  @StringField(1, 40)
  targetTransactionId?: string;

  @GroupArrayField(() => TaxBreakdown)
  tax?: TaxBreakdown[];

  @DecInField()
  taxAmount?: string;
}

export class SessionSourceOfFunds {
  @EnumField(SESSION_SOURCE_OF_FUNDS_TYPES)
  type?: (typeof SESSION_SOURCE_OF_FUNDS_TYPES)[number];

  @AlnumField(1, 40)
  token?: string;

  @GroupField(() => ProvidedKeyedCard)
  provided?: ProvidedKeyedCard;
}

export class SessionCustomer {
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

export class SessionBilling {
  @GroupField(() => Address)
  address?: Address;
}

export class SessionShipping {
  @GroupField(() => Address)
  address?: Address;

  @GroupField(() => ShippingContact)
  contact?: ShippingContact;

  @EnumField(SESSION_SHIPPING_METHODS)
  method?: (typeof SESSION_SHIPPING_METHODS)[number];
}

export class SessionDevice {
  @StringField(1, 255)
  browser?: string;

  @IpAddressField()
  ipAddress?: string;
}

export class SessionUpdateRequest {
  /** Transient: returned as sent, never stored. */
  @StringField(1, 100)
  correlationId?: string;

  @GroupField(() => SessionBilling)
  billing?: SessionBilling;

  @GroupField(() => SessionCustomer)
  customer?: SessionCustomer;

  @GroupField(() => SessionDevice)
  device?: SessionDevice;

  @GroupField(() => SessionOrder)
  order?: SessionOrder;

  @StringField(1, 40)
  partnerSolutionId?: string;

  @GroupField(() => SessionUpdateReference)
  session?: SessionUpdateReference;

  @GroupField(() => SessionShipping)
  shipping?: SessionShipping;

  @GroupField(() => SessionSourceOfFunds)
  sourceOfFunds?: SessionSourceOfFunds;

  @GroupField(() => SessionTransaction)
  transaction?: SessionTransaction;
}
