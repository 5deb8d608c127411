/**
 * The Luhn (mod 10) check of card numbers: used to recognise card numbers (log scrubbing,
 * BASIC verification) and to build token formats (Random tokens pass it, Preserve 6.4 tokens
 * fail it on purpose).
 */
export function passesLuhn(digits: string): boolean {
  return digits.length > 0 && luhnSum(digits, false) % 10 === 0;
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
