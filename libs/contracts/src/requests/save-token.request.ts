import {
  AlnumField,
  AsciiField,
  CrossFieldRules,
  CurrencyField,
  DigitsField,
  EmailField,
  EnumField,
  GroupField,
  HexField,
  IpAddressField,
  PostcodeZipField,
  StringField,
  TelField,
  Upper3Field,
  UrlField,
} from '@gateway/api-fields';
import { VERIFICATION_STRATEGIES, VerificationStrategy } from '../merchant-context';
import { sourceOfFundsTypeUnlessTokenOnly } from './request-rules';
import { Address, ExternalTokenProvider, KeyedCard, ResponseControls, SessionReference, ShippingOrigin } from './shared-groups';

/**
 * `PUT .../merchant/{merchantId}/token/{tokenid}`: create or update token (spec version 57).
 * No `apiOperation`: the path says what the operation is, and the field is UNSUPPORTED here.
 */

export const TOKEN_SOURCE_OF_FUNDS_TYPES = ['CARD', 'PROVIDER_A'] as const;
export const BILLING_AGREEMENT_CARDINALITIES = ['MULTIPLE', 'SINGLE'] as const;

export class TokenBilling {
  @GroupField(() => Address)
  address?: Address;
}

export class TokenCustomer {
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

  @StringField(1, 30)
  taxRegistrationId?: string;
}

export class TokenDevice {
  @IpAddressField()
  ipAddress?: string;
}

/** Token shipping addresses have no company and no stateProvinceCode. */
export class TokenShippingAddress {
  @StringField(1, 100)
  city?: string;

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

export class TokenShippingContact {
  @StringField(1, 50)
  firstName?: string;

  @StringField(1, 50)
  lastName?: string;
}

/** Ignored unless the token holds provider_a billing agreement details (token rule 5). */
export class TokenShipping {
  @GroupField(() => TokenShippingAddress)
  address?: TokenShippingAddress;

  @GroupField(() => TokenShippingContact)
  contact?: TokenShippingContact;

  @GroupField(() => ShippingOrigin)
  origin?: ShippingOrigin;
}

/** Point-to-point encrypted card data: DUKPT key serial number and payload REQUIRED within p2pe. */
export class CardP2pe {
  /** If given, the decrypted PAN must start with these digits. */
  @DigitsField(1, 6)
  cardBin?: string;

  /** INVALID: the terminal detected an encryption error. */
  @StringField(5, 7)
  encryptionState?: string;

  @HexField(16, 64)
  initializationVector?: string;

  @HexField(20, 20, { required: true })
  keySerialNumber: string;

  /** The encrypted PAN. */
  @HexField(32, 1024, { required: true, sensitive: true })
  payload: string;
}

/** The keyed card's fields, or the card number encrypted at the terminal (p2pe). */
export class TokenCard extends KeyedCard {
  @GroupField(() => CardP2pe)
  p2pe?: CardP2pe;
}

export class ProviderABillingAgreement {
  @StringField(1, 100, { required: true })
  id: string;

  /** MULTIPLE: a new agreement id per request; SINGLE: the same id each request. */
  @EnumField(BILLING_AGREEMENT_CARDINALITIES, { required: true })
  cardinality: (typeof BILLING_AGREEMENT_CARDINALITIES)[number];

  @StringField(1, 255)
  name?: string;

  /** Shown to the payer for approval. */
  @StringField(1, 255)
  description?: string;
}

export class TokenProviderA {
  @EmailField()
  accountEmail?: string;

  @StringField(1, 255)
  accountHolder?: string;

  @StringField(1, 13)
  payerId?: string;

  @GroupField(() => ProviderABillingAgreement)
  billingAgreement?: ProviderABillingAgreement;
}

export class TokenProvidedSourceOfFunds {
  @GroupField(() => TokenCard)
  card?: TokenCard;

  @GroupField(() => TokenProviderA)
  provider_a?: TokenProviderA;
}

export class TokenSourceOfFunds {
  /** CARD when card data is passed in any form; may be left unset with a token alone. */
  @EnumField(TOKEN_SOURCE_OF_FUNDS_TYPES)
  type?: (typeof TOKEN_SOURCE_OF_FUNDS_TYPES)[number];

  /** The token to create or update (only where the repository takes merchant-supplied tokens). */
  @AlnumField(1, 40)
  token?: string;

  @AlnumField(11, 11)
  tokenRequestorID?: string;

  /** Push provisioning: the issuer's reference; then no provided.card. */
  @AsciiField(1, 64)
  schemeTokenProvisioningIdentifier?: string;

  @GroupField(() => TokenProvidedSourceOfFunds)
  provided?: TokenProvidedSourceOfFunds;
}

export class TokenPosTerminal {
  @AsciiField(1, 16)
  serialNumber?: string;
}

export class TokenTransaction {
  /** For acquirer card verification; not needed for basic verification. */
  @CurrencyField()
  currency?: string;
}

/** `order` on a token request: only the shared `notificationUrl`. */
export class TokenOrder {
  @UrlField()
  notificationUrl?: string;
}

// Token rule 9 (BASIC and ACQUIRER need the card expiry) is the vault's: the expiry may come from
// the request, the payment session it names or the token it updates, and only the vault sees all
// three (docs/decisions/token-vault-rules.md, amendment of 2026-11-26).
@CrossFieldRules<SaveTokenRequest>(sourceOfFundsTypeUnlessTokenOnly)
export class SaveTokenRequest {
  @StringField(1, 100)
  correlationId?: string;

  @GroupField(() => TokenBilling)
  billing?: TokenBilling;

  @GroupField(() => TokenCustomer)
  customer?: TokenCustomer;

  @GroupField(() => TokenDevice)
  device?: TokenDevice;

  @GroupField(() => ExternalTokenProvider)
  externalTokenProvider?: ExternalTokenProvider;

  @GroupField(() => TokenOrder)
  order?: TokenOrder;

  @GroupField(() => TokenPosTerminal)
  posTerminal?: TokenPosTerminal;

  @GroupField(() => ResponseControls)
  responseControls?: ResponseControls;

  @GroupField(() => SessionReference)
  session?: SessionReference;

  @GroupField(() => TokenShipping)
  shipping?: TokenShipping;

  @GroupField(() => TokenSourceOfFunds, { required: true })
  sourceOfFunds: TokenSourceOfFunds;

  @GroupField(() => TokenTransaction)
  transaction?: TokenTransaction;

  /** Overrides the repository's default: ACQUIRER and BASIC need a card expiry (the vault checks: it may be the session's or the token's). */
  @EnumField(VERIFICATION_STRATEGIES)
  verificationStrategy?: VerificationStrategy;
}
