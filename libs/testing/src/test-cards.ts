/**
 * The only real test card number used anywhere (the gateway's published test Mastercard,
 * shown masked in ARCHITECTURE.md as 512345xxxxxx0008), and numbers derived from it for
 * negative cases and second cards. The log and database scans search for all of these.
 */
export const TEST_CARD = '5123450000000008';

/**
 * The test card with its last two digits changed (Luhn recomputed): a second card of the test
 * card's range, for tests that need two cards (uniqueness rules, changing a token's card).
 */
export const TEST_CARD_SECOND = '5123450000000016';

/**
 * The test card with its check digit broken: fails Luhn, so no request field takes it (400 on the
 * field, docs/decisions/card-number-check-digit.md). Only for tests of that refusal and of code
 * that must still cope with such a number (masking, BASIC verification of a stored number).
 */
export const TEST_CARD_LUHN_FAILURE = '5123450000000009';

/** The test card with its first digit changed (Luhn recomputed): in no scheme's range. */
export const TEST_CARD_UNKNOWN_BIN = '1123450000000007';

/**
 * The test card's first six and last four digits around two digits (Luhn recomputed): the
 * shortest number Preserve 6.4 takes (12 digits), whose 90 possible tokens a test can use up.
 */
export const TEST_CARD_SHORT = '512345180008';

export const TEST_CARD_NUMBERS = [TEST_CARD, TEST_CARD_SECOND, TEST_CARD_LUHN_FAILURE, TEST_CARD_UNKNOWN_BIN, TEST_CARD_SHORT] as const;

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
