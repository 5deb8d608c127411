import type { Pan } from '@gateway/crypto';

export type CardBrand = 'AMEX' | 'DINERS_CLUB' | 'DISCOVER' | 'JCB' | 'MAESTRO' | 'MASTERCARD' | 'UNIONPAY' | 'VISA' | 'UNKNOWN';
export type CardScheme = 'AMEX' | 'CHINA_UNIONPAY' | 'DINERS_CLUB' | 'DISCOVER' | 'JCB' | 'MASTERCARD' | 'VISA' | 'OTHER';
export type FundingMethod = 'CHARGE' | 'CREDIT' | 'DEBIT' | 'UNKNOWN';

export interface CardProfile {
  brand: CardBrand;
  scheme: CardScheme;
  fundingMethod: FundingMethod;
}

interface CardRange extends CardProfile {
  /** First digits of the number, as an inclusive range of equal-length prefixes. */
  from: string;
  to: string;
  lengths: readonly number[];
}

const SIXTEEN_TO_NINETEEN = [16, 17, 18, 19];

/**
 * The card ranges the vault recognises, most specific first: single BINs known to the
 * gateway (the test card's BIN, with its funding method), then each scheme's IIN ranges with
 * the number lengths it issues. BASIC verification refuses numbers outside every range or of
 * a length the range does not issue. A production deployment would load a BIN file from its
 * acquirer here; the table's shape would not change.
 */
const RANGES: readonly CardRange[] = [
  { from: '512345', to: '512345', lengths: [16], brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'CREDIT' },
  { from: '51', to: '55', lengths: [16], brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'UNKNOWN' },
  { from: '2221', to: '2720', lengths: [16], brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'UNKNOWN' },
  { from: '6304', to: '6304', lengths: [12, 13, 14, 15, ...SIXTEEN_TO_NINETEEN], brand: 'MAESTRO', scheme: 'MASTERCARD', fundingMethod: 'DEBIT' },
  { from: '6759', to: '6759', lengths: [12, 13, 14, 15, ...SIXTEEN_TO_NINETEEN], brand: 'MAESTRO', scheme: 'MASTERCARD', fundingMethod: 'DEBIT' },
  { from: '6761', to: '6763', lengths: [12, 13, 14, 15, ...SIXTEEN_TO_NINETEEN], brand: 'MAESTRO', scheme: 'MASTERCARD', fundingMethod: 'DEBIT' },
  { from: '50', to: '50', lengths: [12, 13, 14, 15, ...SIXTEEN_TO_NINETEEN], brand: 'MAESTRO', scheme: 'MASTERCARD', fundingMethod: 'DEBIT' },
  { from: '56', to: '58', lengths: [12, 13, 14, 15, ...SIXTEEN_TO_NINETEEN], brand: 'MAESTRO', scheme: 'MASTERCARD', fundingMethod: 'DEBIT' },
  { from: '4', to: '4', lengths: [13, 16, 19], brand: 'VISA', scheme: 'VISA', fundingMethod: 'UNKNOWN' },
  { from: '34', to: '34', lengths: [15], brand: 'AMEX', scheme: 'AMEX', fundingMethod: 'CHARGE' },
  { from: '37', to: '37', lengths: [15], brand: 'AMEX', scheme: 'AMEX', fundingMethod: 'CHARGE' },
  { from: '300', to: '305', lengths: [14, 15, ...SIXTEEN_TO_NINETEEN], brand: 'DINERS_CLUB', scheme: 'DINERS_CLUB', fundingMethod: 'UNKNOWN' },
  { from: '36', to: '36', lengths: [14, 15, ...SIXTEEN_TO_NINETEEN], brand: 'DINERS_CLUB', scheme: 'DINERS_CLUB', fundingMethod: 'UNKNOWN' },
  { from: '38', to: '39', lengths: [14, 15, ...SIXTEEN_TO_NINETEEN], brand: 'DINERS_CLUB', scheme: 'DINERS_CLUB', fundingMethod: 'UNKNOWN' },
  { from: '3528', to: '3589', lengths: SIXTEEN_TO_NINETEEN, brand: 'JCB', scheme: 'JCB', fundingMethod: 'UNKNOWN' },
  { from: '6011', to: '6011', lengths: SIXTEEN_TO_NINETEEN, brand: 'DISCOVER', scheme: 'DISCOVER', fundingMethod: 'UNKNOWN' },
  { from: '644', to: '649', lengths: SIXTEEN_TO_NINETEEN, brand: 'DISCOVER', scheme: 'DISCOVER', fundingMethod: 'UNKNOWN' },
  { from: '65', to: '65', lengths: SIXTEEN_TO_NINETEEN, brand: 'DISCOVER', scheme: 'DISCOVER', fundingMethod: 'UNKNOWN' },
  { from: '62', to: '62', lengths: SIXTEEN_TO_NINETEEN, brand: 'UNIONPAY', scheme: 'CHINA_UNIONPAY', fundingMethod: 'UNKNOWN' },
];

export const UNKNOWN_CARD: CardProfile = { brand: 'UNKNOWN', scheme: 'OTHER', fundingMethod: 'UNKNOWN' };

export interface CardRangeMatch {
  profile: CardProfile;
  /** The number's length is one the range issues. */
  lengthValid: boolean;
}

/** The range a number belongs to (by its leading digits), or null for an unknown BIN. */
export function matchCardRange(pan: Pan): CardRangeMatch | null {
  return matchBin(pan.bin, pan.length);
}

/** The range of a BIN (the first six digits) for a number of `length` digits. */
export function matchBin(bin: string, length: number): CardRangeMatch | null {
  const range = RANGES.find((r) => {
    const prefix = bin.slice(0, r.from.length);
    return prefix >= r.from && prefix <= r.to;
  });
  if (!range) {
    return null;
  }
  const { brand, scheme, fundingMethod } = range;
  return { profile: { brand, scheme, fundingMethod }, lengthValid: range.lengths.includes(length) };
}

/** Brand, scheme and funding method as responses show them (UNKNOWN / OTHER outside the table). */
export function cardProfile(pan: Pan): CardProfile {
  return matchCardRange(pan)?.profile ?? UNKNOWN_CARD;
}
