import type { OperationSession } from '@gateway/contracts';

/**
 * Whether the payment session's card may add to the card the request gives (spec session rules:
 * explicit over session over token, field by field) what the acquirer's answer depends on: the
 * session holds a card, sealed, and the request leaves out the security code. Then the operation
 * takes the stored-card way, where the vault opens the session's card and completes the request's
 * with it, even when the request's number and expiry are complete: a code the payer entered in
 * the session is not dropped for the request's number (and the edge forgets it only once sent).
 * A name on card alone does not reroute a whole card (it does not change the acquirer's answer).
 */
export function sessionMayCompleteCard(card: { securityCode?: string } | undefined, session: OperationSession | undefined): boolean {
  return session?.sealedCard !== undefined && card?.securityCode === undefined;
}
