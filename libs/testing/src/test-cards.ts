/**
 * The only real test card number used anywhere (the gateway's published test Mastercard,
 * shown masked in ARCHITECTURE.md as 512345xxxxxx0008), and numbers derived from it for
 * negative cases. The log and database scans search for all of these.
 */
export const TEST_CARD = '5123450000000008';

/** The test card with its check digit broken: fails Luhn. */
export const TEST_CARD_LUHN_FAILURE = '5123450000000009';

/** The test card with its first digit changed (Luhn recomputed): in no scheme's range. */
export const TEST_CARD_UNKNOWN_BIN = '1123450000000007';

export const TEST_CARD_NUMBERS = [TEST_CARD, TEST_CARD_LUHN_FAILURE, TEST_CARD_UNKNOWN_BIN] as const;

/** Expiries that drive the test acquirer (ARCHITECTURE section 5). */
export const TEST_EXPIRY = {
  APPROVED: { month: '1', year: '39' },
  DECLINED: { month: '5', year: '39' },
  EXPIRED_CARD: { month: '4', year: '27' },
  TIMED_OUT: { month: '8', year: '28' },
  ACQUIRER_SYSTEM_ERROR: { month: '1', year: '37' },
  UNSPECIFIED_FAILURE: { month: '2', year: '37' },
  UNKNOWN: { month: '5', year: '37' },
} as const;
