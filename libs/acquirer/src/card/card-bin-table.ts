import { Pan } from './pan';

/** `sourceOfFunds.provided.card.fundingMethod`. */
export type FundingMethod = 'CHARGE' | 'CREDIT' | 'DEBIT' | 'UNKNOWN';

/**
 * What the gateway knows about a card from its number alone. `brand` is the card's brand
 * (the spec's enumeration of global brand names plus LOCAL_BRAND_ONLY and UNKNOWN), `scheme`
 * the network that carries it (scheme names plus OTHER): a Maestro card is brand MAESTRO on
 * the MASTERCARD scheme.
 */
export interface CardBinProfile {
  readonly brand: string;
  readonly scheme: string;
  readonly fundingMethod: FundingMethod;
  /** `authorizationResponse.financialNetworkCode` of the scheme's network, where it has one. */
  readonly financialNetworkCode?: string;
  readonly commercialCard?: 'COMMERCIAL_CARD' | 'NOT_A_COMMERCIAL_CARD' | 'UNDETERMINED';
  /**
   * For co-branded cards: how the payer's choice of card type is offered (the payment options
   * inquiry's interaction constraint or capability) and the types to choose from. Absent for
   * cards without a choice, where the spec rejects `cardType`.
   */
  readonly cardTypeSelection?: CardTypeSelection;
}

export interface CardTypeSelection {
  readonly mode: 'CONSTRAINT' | 'CAPABILITY';
  readonly cardTypes: readonly string[];
}

interface BinRange {
  /** Inclusive bounds on a prefix of `low.length` digits. */
  readonly low: string;
  readonly high: string;
  readonly profile: CardBinProfile;
}

const MASTERCARD: CardBinProfile = {
  brand: 'MASTERCARD',
  scheme: 'MASTERCARD',
  fundingMethod: 'UNKNOWN',
  financialNetworkCode: 'MCC',
};

/**
 * Issuer ranges we know exactly (6-digit BINs), checked before the scheme ranges. 512345 is
 * the published test card's BIN: a consumer Mastercard credit card.
 */
const EXACT_BINS: ReadonlyMap<string, CardBinProfile> = new Map([
  ['512345', { ...MASTERCARD, fundingMethod: 'CREDIT', commercialCard: 'NOT_A_COMMERCIAL_CARD' }],
]);

/** The schemes' published IIN ranges, most specific first. Funding is unknown from these alone. */
const SCHEME_RANGES: readonly BinRange[] = [
  range('2221', '2720', MASTERCARD),
  range('51', '55', MASTERCARD),
  range('6304', '6304', {
    brand: 'MAESTRO',
    scheme: 'MASTERCARD',
    fundingMethod: 'DEBIT',
    financialNetworkCode: 'MCC',
  }),
  range('6759', '6759', {
    brand: 'MAESTRO',
    scheme: 'MASTERCARD',
    fundingMethod: 'DEBIT',
    financialNetworkCode: 'MCC',
  }),
  range('50', '50', {
    brand: 'MAESTRO',
    scheme: 'MASTERCARD',
    fundingMethod: 'DEBIT',
    financialNetworkCode: 'MCC',
  }),
  range('56', '58', {
    brand: 'MAESTRO',
    scheme: 'MASTERCARD',
    fundingMethod: 'DEBIT',
    financialNetworkCode: 'MCC',
  }),
  range('4', '4', { brand: 'VISA', scheme: 'VISA', fundingMethod: 'UNKNOWN' }),
  range('34', '34', { brand: 'AMEX', scheme: 'AMEX', fundingMethod: 'UNKNOWN' }),
  range('37', '37', { brand: 'AMEX', scheme: 'AMEX', fundingMethod: 'UNKNOWN' }),
  range('3528', '3589', { brand: 'JCB', scheme: 'JCB', fundingMethod: 'UNKNOWN' }),
  range('300', '305', { brand: 'DINERS_CLUB', scheme: 'DINERS_CLUB', fundingMethod: 'UNKNOWN' }),
  range('36', '36', { brand: 'DINERS_CLUB', scheme: 'DINERS_CLUB', fundingMethod: 'UNKNOWN' }),
  range('38', '39', { brand: 'DINERS_CLUB', scheme: 'DINERS_CLUB', fundingMethod: 'UNKNOWN' }),
  range('6011', '6011', { brand: 'DISCOVER', scheme: 'DISCOVER', fundingMethod: 'UNKNOWN' }),
  range('644', '649', { brand: 'DISCOVER', scheme: 'DISCOVER', fundingMethod: 'UNKNOWN' }),
  range('65', '65', { brand: 'DISCOVER', scheme: 'DISCOVER', fundingMethod: 'UNKNOWN' }),
  range('62', '62', { brand: 'UNIONPAY', scheme: 'UNIONPAY', fundingMethod: 'UNKNOWN' }),
].sort((a, b) => b.low.length - a.low.length);

const UNKNOWN_CARD: CardBinProfile = { brand: 'UNKNOWN', scheme: 'OTHER', fundingMethod: 'UNKNOWN' };

/** Brand, scheme and funding method of a card, from its BIN. Never fails: unknown cards are UNKNOWN/OTHER. */
export function lookupCardBin(pan: Pan): CardBinProfile {
  return lookupBin(pan.prefix(8));
}

/** The same from a BIN (the first 6 to 8 digits), which is not card data and may be logged. */
export function lookupBin(bin: string): CardBinProfile {
  const exact = EXACT_BINS.get(bin.slice(0, 6));
  if (exact) {
    return exact;
  }
  for (const entry of SCHEME_RANGES) {
    const prefix = bin.slice(0, entry.low.length);
    if (prefix.length === entry.low.length && prefix >= entry.low && prefix <= entry.high) {
      return entry.profile;
    }
  }
  return UNKNOWN_CARD;
}

function range(low: string, high: string, profile: CardBinProfile): BinRange {
  return { low, high, profile };
}
