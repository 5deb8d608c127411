/**
 * A card's expiry as the spec carries it: month 1-12 and a two-digit year (2000 + value).
 * A card is valid through the last day of its expiry month.
 */
export interface CardExpiry {
  readonly month: number;
  readonly year: number;
}

/** From the request's strings (`expiry.month` "1" or "01", `expiry.year` "39"). */
export function parseCardExpiry(month: string, year: string): CardExpiry {
  if (!/^[0-9]{1,2}$/.test(month) || !/^[0-9]{2}$/.test(year)) {
    throw new TypeError('A card expiry is a month 1-12 and a two-digit year.');
  }
  const m = Number(month);
  if (m < 1 || m > 12) {
    throw new TypeError('A card expiry is a month 1-12 and a two-digit year.');
  }
  return { month: m, year: Number(year) };
}

/** `MM/YY`, the form test-card tables and receipts use. */
export function formatCardExpiry(expiry: CardExpiry): string {
  return `${pad2(expiry.month)}/${pad2(expiry.year)}`;
}

/** The response's `expiry` group: month without leading zero, two-digit year, as strings. */
export function expiryForResponse(expiry: CardExpiry): { month: string; year: string } {
  return { month: String(expiry.month), year: pad2(expiry.year) };
}

/** True once the expiry month has ended (in UTC). */
export function hasExpired(expiry: CardExpiry, now: Date): boolean {
  const year = 2000 + expiry.year;
  const currentYear = now.getUTCFullYear();
  const currentMonth = now.getUTCMonth() + 1;
  return year < currentYear || (year === currentYear && expiry.month < currentMonth);
}

function pad2(value: number): string {
  return String(value).padStart(2, '0');
}
