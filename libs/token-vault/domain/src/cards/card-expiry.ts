/**
 * A card expiry: month and year, where the request's two-digit year means 2000 + value
 * (spec). Stored and returned as MMYY. A card is valid through the last day of its month.
 */
export class CardExpiry {
  private constructor(
    readonly month: number,
    readonly year: number,
  ) {}

  /** From the request's `expiry.month` (1-12, "1" or "01") and `expiry.year` (2 digits). */
  static of(month: string, year: string): CardExpiry | null {
    if (!/^[0-9]{1,2}$/.test(month) || !/^[0-9]{2}$/.test(year)) {
      return null;
    }
    const m = Number(month);
    return m >= 1 && m <= 12 ? new CardExpiry(m, 2000 + Number(year)) : null;
  }

  static fromMmyy(mmyy: string): CardExpiry {
    const expiry = CardExpiry.of(mmyy.slice(0, 2), mmyy.slice(2));
    if (!expiry || mmyy.length !== 4) {
      throw new Error('not an MMYY expiry');
    }
    return expiry;
  }

  get mmyy(): string {
    return `${String(this.month).padStart(2, '0')}${String(this.year % 100).padStart(2, '0')}`;
  }

  /** True from the first day after the expiry month (UTC). */
  isExpired(now: Date): boolean {
    const firstDayAfter = Date.UTC(this.year, this.month, 1);
    return now.getTime() >= firstDayAfter;
  }

  equals(other: CardExpiry | null): boolean {
    return other !== null && other.month === this.month && other.year === this.year;
  }
}
