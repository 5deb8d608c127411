import type { JsonObject } from '@gateway/contracts';
import { objectOrEmpty } from './order-snapshot';

/**
 * UNMASK (permission, certificate authentication, asked for: unmaskRequested): the reply to the
 * request that gave a card number in clear shows it in full. The ledger stored the body masked,
 * and replays and retrievals stay masked. The body as it is when it shows no card number.
 */
export function withCardNumber(body: JsonObject, number: string): JsonObject {
  const sourceOfFunds = objectOrEmpty(body.sourceOfFunds);
  const provided = objectOrEmpty(sourceOfFunds.provided);
  const card = objectOrEmpty(provided.card);
  if (card.number === undefined) {
    return body;
  }
  return { ...body, sourceOfFunds: { ...sourceOfFunds, provided: { ...provided, card: { ...card, number } } } };
}
