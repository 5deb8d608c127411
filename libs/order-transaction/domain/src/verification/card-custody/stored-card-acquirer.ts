import type { VerifyCardResult } from '@gateway/acquirer';
import type {
  AcquirerCallMessage,
  ExplicitCardFields,
  MaskedCard,
  RequestEnvelope,
} from '@gateway/contracts';
import type { CardlessVerifyCardRequest } from '../acquirer/verify-card-request.mapper';

/**
 * A card verification whose card the token vault holds (a token and/or a payment session's
 * sealed card): the vault completes the card (explicit > session > token), calls the acquirer
 * and answers with the card masked (card-custody.messages.ts). The card number never reaches
 * this service.
 */
export interface StoredCardVerification {
  readonly envelope: RequestEnvelope;
  readonly source: AcquirerCallMessage['source'];
  readonly explicit?: ExplicitCardFields;
  readonly request: CardlessVerifyCardRequest;
}

export interface StoredCardVerified {
  readonly result: VerifyCardResult;
  readonly card: MaskedCard;
}

export interface StoredCardAcquirer {
  verify(verification: StoredCardVerification): Promise<StoredCardVerified>;
  /** A stored card's BIN (the first six digits of its 6.4 mask), known before any acquirer call. */
  binOf(envelope: RequestEnvelope, token: string): Promise<string>;
}

export const STORED_CARD_ACQUIRER = Symbol('STORED_CARD_ACQUIRER');
