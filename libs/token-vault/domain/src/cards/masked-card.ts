import type { MaskedCard } from '@gateway/contracts';
import type { Pan } from '@gateway/crypto';
import { cardProfile } from './card-ranges';

/**
 * A card as a response may show it (number masked 6.4, BIN facts from the one BIN table), from
 * whichever of its details are known. The expiry is in the response form: month without a
 * leading zero, two-digit year.
 */
export function maskedCard(card: { number?: Pan; expiry?: { month: string; year: string }; nameOnCard?: string }): Partial<MaskedCard> {
  return {
    ...(card.number ? { number: card.number.masked, ...cardProfile(card.number) } : {}),
    ...(card.expiry ? { expiry: { month: String(Number(card.expiry.month)), year: card.expiry.year } } : {}),
    ...(card.nameOnCard !== undefined ? { nameOnCard: card.nameOnCard } : {}),
  };
}
