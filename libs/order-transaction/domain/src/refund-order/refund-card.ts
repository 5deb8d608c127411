import { AcquirerCard, Pan, parseCardExpiry, SecurityCode } from '@gateway/acquirer';
import type { ExplicitCardFields, RefundCard } from '@gateway/contracts';
import { passesLuhn } from '@gateway/crypto';
import { invalidSensitive, missing } from '../request-errors/request-errors';

const CARD = 'sourceOfFunds.provided.card';

/**
 * Track 2 (ISO/IEC 7813): start sentinel, PAN, separator, expiry YYMM, then service code,
 * discretionary data, end sentinel and LRC, which the gateway does not need.
 */
const TRACK2 = /^;?([0-9]{12,19})[=D]([0-9]{2})([0-9]{2})/;

/** The card a refund request gives explicitly, as the acquirer or the vault takes it. */
export interface RequestCard extends ExplicitCardFields {
  sequenceNumber?: string;
  accountType?: string;
  /** Track data came with the request (echoed as `trackDataProvided`; the data itself never is). */
  trackDataProvided: boolean;
}

/**
 * The card fields of the request. A card-present refund may carry only track 2: the number and
 * expiry are read from it. When the request also gives them, track 2 must match (spec: "must
 * match PAN and expiry in the request"). Track data is used here and then dropped: it is never
 * stored or echoed (PCI DSS 3.2).
 */
export function requestCard(card: RefundCard | undefined): RequestCard | undefined {
  if (!card) {
    return undefined;
  }
  const track = card.track2 === undefined ? undefined : readTrack2(card.track2);
  if (track) {
    const numberDiffers = card.number !== undefined && card.number !== track.number;
    const expiryDiffers =
      card.expiry !== undefined && (Number(card.expiry.month) !== Number(track.expiry.month) || card.expiry.year !== track.expiry.year);
    if (numberDiffers || expiryDiffers) {
      throw invalidSensitive(`${CARD}.track2`, 'Track 2 data must match the card number and expiry in the request.');
    }
  }
  const number = card.number ?? track?.number;
  const expiry = card.expiry ? { month: card.expiry.month, year: card.expiry.year } : track?.expiry;
  return {
    ...(number !== undefined ? { number } : {}),
    ...(expiry ? { expiry } : {}),
    ...(card.securityCode !== undefined ? { securityCode: card.securityCode } : {}),
    ...(card.nameOnCard !== undefined ? { nameOnCard: card.nameOnCard } : {}),
    ...(card.sequenceNumber !== undefined ? { sequenceNumber: card.sequenceNumber } : {}),
    ...(card.accountType !== undefined ? { accountType: card.accountType } : {}),
    trackDataProvided: card.track1 !== undefined || card.track2 !== undefined,
  };
}

/**
 * The card for a refund the gateway sends the acquirer itself (a standalone refund to a card
 * given in the request). From here on the number and security code exist only as Pan and
 * SecurityCode, which print masked.
 */
export function acquirerCardOf(card: RequestCard | undefined): AcquirerCard {
  if (card?.number === undefined) {
    throw missing(`${CARD}.number`, 'A standalone refund needs the card to refund to (or sourceOfFunds.token).');
  }
  if (card.expiry === undefined) {
    throw missing(`${CARD}.expiry`, 'The card expiry is required to refund to a card.');
  }
  const { number, expiry } = card;
  return {
    number: Pan.of(number),
    expiry: parseCardExpiry(expiry.month, expiry.year),
    ...(card.securityCode !== undefined ? { securityCode: SecurityCode.of(card.securityCode) } : {}),
    ...(card.nameOnCard !== undefined ? { nameOnCard: card.nameOnCard } : {}),
    ...(card.sequenceNumber !== undefined ? { sequenceNumber: card.sequenceNumber } : {}),
  };
}

function readTrack2(track2: string): { number: string; expiry: { month: string; year: string } } {
  const match = TRACK2.exec(track2);
  const month = match ? Number(match[3]) : 0;
  if (!match || month < 1 || month > 12) {
    throw invalidSensitive(`${CARD}.track2`, 'Track 2 data must be ISO/IEC 7813 track 2: card number, separator, expiry YYMM.');
  }
  // The card number field's rule holds for the number track 2 carries when the request gives
  // none (with one, the track must equal it): a Luhn failure reaches no acquirer this way either.
  if (!passesLuhn(match[1])) {
    throw invalidSensitive(`${CARD}.track2`, 'The card number in track 2 fails the card number check (Luhn).');
  }
  return { number: match[1], expiry: { month: String(month), year: match[2] } };
}
