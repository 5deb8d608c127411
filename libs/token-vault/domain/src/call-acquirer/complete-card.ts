import { CardDetails, CardExpiry as AcquirerCardExpiry, parseCardExpiry, SecurityCode } from '@gateway/acquirer';
import { ExplicitCardFields, GatewayError } from '@gateway/contracts';
import { Pan } from '@gateway/crypto';
import type { CardInstrument } from '../instrument/instrument';
import type { SessionCard } from '../session-cards/session-card-sealing';

export interface CardSources {
  /** What the request itself says about the card. */
  explicit?: ExplicitCardFields;
  /** The card of the payment session the request names. */
  session?: SessionCard;
  /** The card stored against the request's token. */
  token?: CardInstrument;
}

const CARD = 'sourceOfFunds.provided.card';

/**
 * The card an acquirer call uses, field by field with the spec's precedence (session rules):
 * explicit over session over token. The result must be complete: a number and an expiry. A
 * missing one is a 400 on the request field that would complete it, since that is what the
 * merchant can send (a token never holds a security code or name on card; those come from the
 * request or the session only).
 */
export function completeCard(sources: CardSources): CardDetails {
  const { explicit, session, token } = sources;
  const number = explicitPan(explicit?.number) ?? session?.number ?? token?.pan;
  const expiry = explicitExpiry(explicit?.expiry) ?? explicitExpiry(session?.expiry) ?? tokenExpiry(token);
  if (!number) {
    throw missing(`${CARD}.number`, 'card number', sources);
  }
  if (!expiry) {
    throw missing(`${CARD}.expiry`, 'card expiry', sources);
  }
  const securityCode = explicit?.securityCode ?? session?.securityCode?.reveal();
  const nameOnCard = explicit?.nameOnCard ?? session?.nameOnCard;
  return {
    number,
    expiry,
    ...(securityCode !== undefined ? { securityCode: SecurityCode.of(securityCode) } : {}),
    ...(nameOnCard !== undefined ? { nameOnCard } : {}),
  };
}

function explicitPan(number: string | undefined): Pan | undefined {
  return number === undefined ? undefined : Pan.of(number);
}

function explicitExpiry(expiry: { month: string; year: string } | undefined): AcquirerCardExpiry | undefined {
  return expiry === undefined ? undefined : parseCardExpiry(expiry.month, expiry.year);
}

function tokenExpiry(token: CardInstrument | undefined): AcquirerCardExpiry | undefined {
  return token?.expiry ? { month: token.expiry.month, year: token.expiry.year % 100 } : undefined;
}

function missing(field: string, what: string, sources: CardSources): GatewayError {
  const consulted = [
    'the request',
    ...(sources.session ? ['the payment session'] : []),
    ...(sources.token ? ['the token'] : []),
  ];
  const where = consulted.length === 1 ? consulted[0] : `${consulted.slice(0, -1).join(', ')} or ${consulted.at(-1)}`;
  return GatewayError.invalidField(field, 'MISSING', `Missing parameter ${field}: the ${what} is not in ${where}.`);
}
