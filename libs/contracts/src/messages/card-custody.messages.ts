import { RequestEnvelope } from '../envelope';
import { JsonObject } from './operation.messages';

/**
 * Card custody: the token vault is the only service that ever decrypts a stored PAN
 * (ARCHITECTURE 1, 6). When an operation's card comes from a token or a payment session, the
 * service performing it never sees the number: it asks the vault to make the acquirer call.
 * A card the merchant sent explicitly in the request is used by the service directly (it
 * arrived in the request anyway).
 *
 *   token-vault.card.seal.v1       a payment session's card details, encrypted by the vault
 *                                  into an opaque value the edge keeps in the session and
 *                                  passes along with operations that name the session;
 *   token-vault.acquirer.call.v1   an acquirer operation whose card is a token and/or a sealed
 *                                  session card, completed by explicit request values:
 *                                  explicit > session > token (spec session rules), and the
 *                                  combination must be complete.
 */

/** What a response may show of a card: masked number, expiry, and BIN-derived facts. */
export interface MaskedCard {
  /** 6.4 masked (512345xxxxxx0008). */
  number: string;
  expiry?: { month: string; year: string };
  brand?: string;
  scheme?: string;
  fundingMethod?: string;
  nameOnCard?: string;
}

/** Card fields a request gives explicitly (request values win over session and token). */
export interface ExplicitCardFields {
  number?: string;
  expiry?: { month: string; year: string };
  securityCode?: string;
  nameOnCard?: string;
}

/** `token-vault.card.seal.v1` */
export interface SealCardMessage {
  envelope: RequestEnvelope;
  /** What the sealed value is bound to (a session id): it opens only for the same merchant and binding. */
  bindingId: string;
  card: ExplicitCardFields;
}

export interface SealCardReply {
  /** Opaque to everyone but the vault (authenticated encryption under a vault data key). */
  sealed: string;
  card: Partial<MaskedCard>;
}

export const ACQUIRER_CALL_OPERATIONS = ['VERIFY', 'AUTHORIZE', 'PAY', 'CAPTURE', 'VOID', 'REFUND'] as const;
export type AcquirerCallOperation = (typeof ACQUIRER_CALL_OPERATIONS)[number];

/** `token-vault.acquirer.call.v1` */
export interface AcquirerCallMessage {
  envelope: RequestEnvelope;
  operation: AcquirerCallOperation;
  /** Where the card comes from; at least one of token and sealed. */
  source: {
    token?: string;
    sealed?: { value: string; bindingId: string };
  };
  /** Explicit values from the request, over the session's and the token's. */
  explicit?: ExplicitCardFields;
  /** The acquirer request without its card, in the acquirer lib's wire form. */
  request: JsonObject;
}

export interface AcquirerCallReply {
  /** The acquirer's result in the acquirer lib's wire form (cards masked). */
  result: JsonObject;
  card: MaskedCard;
}
