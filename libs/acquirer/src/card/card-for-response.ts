import type { MaskedCard } from '@gateway/contracts';
import type { CardProfile } from '../acquirer-results';
import { expiryForResponse } from './card-expiry';

/**
 * The card an acquirer result shows, as an operation's reply carries it: the 6.4 mask the
 * acquirer answered (the number itself is never read here), the expiry in the response form,
 * brand, scheme and funding method. The acquirer does not echo the name on the card, so it is
 * shown only where the caller passes the one its request carried.
 */
export function cardForResponse(card: CardProfile, shown: { nameOnCard?: string } = {}): MaskedCard {
  return {
    number: card.maskedNumber,
    expiry: expiryForResponse(card.expiry),
    brand: card.brand,
    scheme: card.scheme,
    fundingMethod: card.fundingMethod,
    ...(shown.nameOnCard !== undefined ? { nameOnCard: shown.nameOnCard } : {}),
  };
}
