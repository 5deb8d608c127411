/**
 * The VERIFY request fields the verification rules read, as plain data (the validated
 * request classes of the request-validation work replace these in phase 2; the shapes are
 * the spec's). Values are the request's strings: amounts are decimal strings, never numbers.
 */

export interface AddressData {
  city?: string;
  company?: string;
  country?: string;
  postcodeZip?: string;
  stateProvince?: string;
  stateProvinceCode?: string;
  street?: string;
  street2?: string;
}

export type SameAsBilling = 'DIFFERENT' | 'SAME' | 'UNKNOWN';

export interface ShippingData {
  address?: AddressData & { source?: string; sameAsBilling?: SameAsBilling };
  contact?: { email?: string; firstName?: string; lastName?: string; mobilePhone?: string; phone?: string };
  method?: string;
  origin?: { postcodeZip?: string };
}

export interface IdentificationData {
  country?: string;
  type?: string;
  value?: string;
}

export interface CustomerData {
  email?: string;
  firstName?: string;
  middleName?: string;
  lastName?: string;
  identification?: IdentificationData;
}

export interface AvsResponseCodeRuleData {
  action: string;
  avsResponseCode: string;
}

export interface OrderData {
  currency: string;
  reference?: string;
  description?: string;
  purchaseType?: string;
  taxRegistrationId?: string;
  taxStatus?: string;
  walletIndicator?: string;
  walletProvider?: string;
  transactionFiltering?: { avsResponseCodeRules?: AvsResponseCodeRuleData[] };
}

export interface CardData {
  number?: string;
  expiry?: { month: string; year: string };
  securityCode?: string;
  nameOnCard?: string;
  cardType?: string;
  emvRequest?: string;
  sequenceNumber?: string;
  devicePayment?: { eciIndicator?: string; onlinePaymentCryptogram?: string };
}

export interface SourceOfFundsData {
  type?: string;
  token?: string;
  provided?: { card?: CardData };
}

export interface AgreementData {
  id?: string;
  type?: string;
  amountVariability?: string;
  customData?: string;
  expiryDate?: string;
  startDate?: string;
  maximumAmountPerPayment?: string;
  minimumAmountPerPayment?: string;
  minimumDaysBetweenPayments?: number;
  numberOfPayments?: number;
  paymentFrequency?: string;
  retailer?: { abbreviatedTradingName?: string; merchantCategoryCode?: string; tradingName?: string };
}

export interface AuthenticationData {
  '3ds'?: { acsEci?: string; authenticationToken?: string; transactionId?: string };
  '3ds2'?: {
    acsReference?: string;
    acsTransactionId?: string;
    authenticationScheme?: string;
    custom?: string;
    dsReference?: string;
    protocolVersion?: string;
    statusReasonCode?: string;
    transactionStatus?: string;
  };
  amount?: string;
  time?: string;
  transactionId?: string;
}

export interface AccountFundingData {
  purpose?: string;
  senderIsRecipient?: boolean;
  senderType?: string;
  recipient?: {
    firstName?: string;
    middleName?: string;
    lastName?: string;
    address?: Omit<AddressData, 'postcodeZip' | 'company' | 'stateProvince'> & { postCodeZip?: string };
    identification?: IdentificationData;
  };
}

/** `posTerminal.*`: passed to the acquirer and echoed; EMV tags may fill some of it. */
export interface PosTerminalData {
  address?: AddressData;
  attended?: string;
  cardPresenceCapability?: string;
  cardholderActivated?: string;
  inputCapability?: string;
  lane?: string;
  location?: string;
  mobile?: { cardInputDevice?: string };
  onlineReasonCode?: string;
  panEntryMode?: string;
  pinEntryCapability?: string;
  pinLengthCapability?: number;
  serialNumber?: string;
  store?: { id?: string; name?: string };
}

export interface VerifyRequestData {
  apiOperation: 'VERIFY';
  accountFunding?: AccountFundingData;
  agreement?: AgreementData;
  authentication?: AuthenticationData;
  billing?: { address?: AddressData };
  correlationId?: string;
  customer?: CustomerData;
  order: OrderData;
  posTerminal?: PosTerminalData;
  shipping?: ShippingData;
  sourceOfFunds: SourceOfFundsData;
}
