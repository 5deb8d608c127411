/**
 * The Luhn (mod 10) check of card numbers: used to recognise card numbers (log scrubbing,
 * BASIC verification) and to build token formats (Random tokens pass it, Preserve 6.4 tokens
 * fail it on purpose).
 */
export function passesLuhn(digits: string): boolean {
  return digits.length > 0 && luhnSum(digits, false) % 10 === 0;
}

/**
 * The card number field's rule (the spec's Digits(9-19), its last digit the Luhn check digit),
 * wherever a card number enters: keyed, read from a chip or a track, decrypted from a P2PE
 * payload, or received by a service. docs/decisions/card-number-check-digit.md.
 */
export function isCardNumber(value: string): boolean {
  return /^[0-9]{9,19}$/.test(value) && passesLuhn(value);
}

/**
 * Whether a run of digits may hold a card number, for masking what should never be shown or
 * logged: a run of 13-19 digits any stretch of 13 or more of which passes Luhn (a card number
 * alone, or with a digit or more either side: at most 28 stretches, so it stays cheap), or any
 * longer run (too many stretches to check, and nearly all such runs hold one that passes). A
 * stretch starting with 0 is no card number (none is issued under major industry identifier 0,
 * and a run of zeros passes Luhn). A 13-19 digit number that fails them all (an epoch in
 * milliseconds, an amount past the API's maximum) stays readable.
 */
export function mayHoldCardNumber(run: string): boolean {
  if (run.length > 19) {
    return true;
  }
  for (let start = 0; start + 13 <= run.length; start++) {
    if (run[start] === '0') {
      continue;
    }
    for (let end = start + 13; end <= run.length; end++) {
      if (passesLuhn(run.slice(start, end))) {
        return true;
      }
    }
  }
  return false;
}

/** The digit to append to `payload` so the whole number passes the Luhn check. */
export function luhnCheckDigit(payload: string): string {
  return String((10 - (luhnSum(payload, true) % 10)) % 10);
}

/** Sum of the digits with every second digit doubled, from the right (after the check digit). */
function luhnSum(digits: string, checkDigitMissing: boolean): number {
  let sum = 0;
  let double = checkDigitMissing;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) {
      return NaN;
    }
    if (double) {
      d *= 2;
      if (d > 9) {
        d -= 9;
      }
    }
    sum += d;
    double = !double;
  }
  return sum;
}
