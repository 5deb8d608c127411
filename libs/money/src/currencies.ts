/**
 * ISO 4217 active currency codes and their minor units (the number of digits after the
 * decimal point an amount may have). Every currency not listed under another exponent has 2.
 * Source: the ISO 4217 list (amendment 176). Funds codes and precious metals without a
 * minor unit (XAU, XAG, XPT, XPD, XDR, XBA-XBD, XSU, XUA, XTS, XXX) are not payment
 * currencies and are left out.
 */
const EXPONENT_0 = ['BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'UYI', 'VND', 'VUV', 'XAF', 'XOF', 'XPF'];
const EXPONENT_3 = ['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'];
const EXPONENT_4 = ['CLF', 'UYW'];
const EXPONENT_2 = [
  'AED', 'AFN', 'ALL', 'AMD', 'AOA', 'ARS', 'AUD', 'AWG', 'AZN', 'BAM', 'BBD', 'BDT', 'BGN', 'BMD', 'BND', 'BOB',
  'BOV', 'BRL', 'BSD', 'BTN', 'BWP', 'BYN', 'BZD', 'CAD', 'CDF', 'CHE', 'CHF', 'CHW', 'CNY', 'COP', 'COU', 'CRC',
  'CUP', 'CVE', 'CZK', 'DKK', 'DOP', 'DZD', 'EGP', 'ERN', 'ETB', 'EUR', 'FJD', 'FKP', 'GBP', 'GEL', 'GHS', 'GIP',
  'GMD', 'GTQ', 'GYD', 'HKD', 'HNL', 'HTG', 'HUF', 'IDR', 'ILS', 'INR', 'IRR', 'JMD', 'KES', 'KGS', 'KHR', 'KPW',
  'KYD', 'KZT', 'LAK', 'LBP', 'LKR', 'LRD', 'LSL', 'MAD', 'MDL', 'MGA', 'MKD', 'MMK', 'MNT', 'MOP', 'MRU', 'MUR',
  'MVR', 'MWK', 'MXN', 'MXV', 'MYR', 'MZN', 'NAD', 'NGN', 'NIO', 'NOK', 'NPR', 'NZD', 'PAB', 'PEN', 'PGK', 'PHP',
  'PKR', 'PLN', 'QAR', 'RON', 'RSD', 'RUB', 'SAR', 'SBD', 'SCR', 'SDG', 'SEK', 'SGD', 'SHP', 'SLE', 'SOS', 'SRD',
  'SSP', 'STN', 'SVC', 'SYP', 'SZL', 'THB', 'TJS', 'TMT', 'TOP', 'TRY', 'TTD', 'TWD', 'TZS', 'UAH', 'USD', 'USN',
  'UYU', 'UZS', 'VED', 'VES', 'WST', 'XCD', 'XCG', 'YER', 'ZAR', 'ZMW', 'ZWG',
];

const EXPONENTS: ReadonlyMap<string, number> = new Map([
  ...EXPONENT_0.map((c) => [c, 0] as const),
  ...EXPONENT_2.map((c) => [c, 2] as const),
  ...EXPONENT_3.map((c) => [c, 3] as const),
  ...EXPONENT_4.map((c) => [c, 4] as const),
]);

export function isKnownCurrency(code: string): boolean {
  return EXPONENTS.has(code);
}

/** Digits allowed after the decimal point in an amount of this currency; undefined if unknown. */
export function minorUnits(code: string): number | undefined {
  return EXPONENTS.get(code);
}

/** The most digits after the point an amount the API answers has (the spec's DecOut). */
export const MAX_AMOUNT_DECIMAL_PLACES = 3;

/**
 * Digits after the point a request amount of this currency may have: its minor units, but no
 * more than the API can answer. Only CLF and UYW (ISO 4217 exponent 4) are cut, to 3: an amount
 * the gateway accepted must come back exactly (docs/decisions/amount-bounds.md). Undefined if
 * the currency is unknown.
 */
export function amountDecimalPlaces(code: string): number | undefined {
  const units = minorUnits(code);
  return units === undefined ? undefined : Math.min(units, MAX_AMOUNT_DECIMAL_PLACES);
}
