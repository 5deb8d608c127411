import type { CardTypeSelection } from '@gateway/acquirer';
import { invalid, missing, unsupported } from '../../request-errors/request-errors';

const FIELD = 'sourceOfFunds.provided.card.cardType';

/**
 * `sourceOfFunds.provided.card.cardType`, for co-branded cards (the spec): mandatory when
 * card type selection is an interaction constraint for the card, optional when it is a
 * capability (the gateway chooses the card's first type when absent), rejected when the card
 * offers no selection. A given type must be one the card offers. Returns the type to send
 * to the acquirer, if any.
 */
export function resolveCardType(
  cardType: string | undefined,
  selection: CardTypeSelection | undefined,
): string | undefined {
  if (!selection) {
    if (cardType !== undefined) {
      throw unsupported(FIELD, 'Card type selection is not available for this card.');
    }
    return undefined;
  }
  if (cardType === undefined) {
    if (selection.mode === 'CONSTRAINT') {
      throw missing(FIELD, 'This card requires the payer to select a card type.');
    }
    return selection.cardTypes[0];
  }
  if (!selection.cardTypes.includes(cardType)) {
    throw invalid(FIELD, cardType, `The card type must be one of ${selection.cardTypes.join(', ')}.`);
  }
  return cardType;
}
