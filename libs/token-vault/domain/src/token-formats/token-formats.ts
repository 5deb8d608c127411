import { randomInt } from 'node:crypto';
import { luhnCheckDigit, Pan, passesLuhn } from '@gateway/crypto';

/**
 * Token formats of the generation strategies (ARCHITECTURE 5, docs/decisions/token-vault-rules.md):
 * - Random: 16 digits, starting with 9 (outside every card scheme's range), passing Luhn.
 * - Preserve 6.4: the card's first six and last four digits around random digits, of the
 *   card's length, FAILING Luhn on purpose: a token can then never be the card number (which
 *   passes Luhn) or be mistaken for a card number by anything that checks; for the rare stored
 *   number that itself fails Luhn the token is also compared with it.
 * Tokens are not secret (they are what merchants keep instead of card numbers), but they must
 * not be guessable from one another, hence crypto.randomInt.
 */
export const RANDOM_TOKEN_LENGTH = 16;

/** Preserve 6.4 needs at least two digits to vary between the first six and the last four. */
export const PRESERVE_6_4_MIN_LENGTH = 12;

export function randomToken(): string {
  const payload = `9${randomDigits(RANDOM_TOKEN_LENGTH - 2)}`;
  return payload + luhnCheckDigit(payload);
}

export function preserve64Token(pan: Pan): string {
  if (pan.length < PRESERVE_6_4_MIN_LENGTH) {
    throw new RangeError(`Preserve 6.4 needs card numbers of at least ${PRESERVE_6_4_MIN_LENGTH} digits`);
  }
  const middle = pan.length - 10;
  for (;;) {
    const token = `${pan.bin}${randomDigits(middle)}${pan.lastFour}`;
    // Nine in ten candidates already fail Luhn; this loop runs about 1.1 times on average.
    if (!passesLuhn(token) && token !== pan.reveal()) {
      return token;
    }
  }
}

function randomDigits(count: number): string {
  let digits = '';
  for (let i = 0; i < count; i++) {
    digits += String(randomInt(10));
  }
  return digits;
}
