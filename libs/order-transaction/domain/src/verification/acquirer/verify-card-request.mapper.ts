import {
  AcquirerAddress,
  AcquirerCardholder,
  AcquirerPosData,
  CardDetails,
  Cardless,
  CardPresentment,
  externalAuthenticationOf,
  Pan,
  parseCardExpiry,
  SecurityCode,
  VerifyCardRequest,
} from '@gateway/acquirer';
import type {
  Address,
  ExplicitCardFields,
  VerifyCard,
  VerifyPosTerminal,
  VerifyRequest,
} from '@gateway/contracts';
import type { ParsedEmvRequest } from '../rules/emv-request.rule';
import { invalidSensitive, missing } from '../../request-errors/request-errors';

const CARD = 'sourceOfFunds.provided.card';

/** A VERIFY's acquirer request without its card details (which the token vault may hold). */
export type CardlessVerifyCardRequest = Cardless<VerifyCardRequest>;

/**
 * True when the request's own card fields (after EMV filling) identify the card: explicit
 * values win over a session's and a token's (spec session rules), so nothing else is needed.
 */
export function hasCompleteExplicitCard(
  card: VerifyCard | undefined,
): card is VerifyCard & Required<Pick<VerifyCard, 'number' | 'expiry'>> {
  return card?.number !== undefined && card.expiry !== undefined;
}

/**
 * The card the acquirer verifies, from the request's card fields once EMV tags have filled
 * them. From here on the number and security code only exist as Pan and SecurityCode, which
 * print masked.
 */
export function explicitCardDetails(card: VerifyCard | undefined): CardDetails {
  if (card?.number === undefined) {
    throw missing(
      `${CARD}.number`,
      'A card number (or a token holding one) is required to verify a card.',
    );
  }
  if (card.expiry === undefined) {
    throw missing(`${CARD}.expiry`, 'The card expiry is required to verify a card.');
  }
  return {
    number: parsed(`${CARD}.number`, () => Pan.of(card.number!)),
    expiry: parsed(`${CARD}.expiry`, () => parseCardExpiry(card.expiry!.month, card.expiry!.year)),
    ...(card.securityCode !== undefined
      ? { securityCode: parsed(`${CARD}.securityCode`, () => SecurityCode.of(card.securityCode!)) }
      : {}),
    ...(card.nameOnCard !== undefined ? { nameOnCard: card.nameOnCard } : {}),
  };
}

/** The explicit values the token vault puts over the stored (or session) card. */
export function explicitCardFields(card: VerifyCard | undefined): ExplicitCardFields | undefined {
  if (!card) {
    return undefined;
  }
  const fields: ExplicitCardFields = {
    ...(card.number !== undefined ? { number: card.number } : {}),
    ...(card.expiry !== undefined ? { expiry: { month: card.expiry.month, year: card.expiry.year } } : {}),
    ...(card.securityCode !== undefined ? { securityCode: card.securityCode } : {}),
    ...(card.nameOnCard !== undefined ? { nameOnCard: card.nameOnCard } : {}),
  };
  return Object.keys(fields).length ? fields : undefined;
}

/** The card's presentment data: EMV sequence number, EMV data without its sensitive tags, device payment. */
export function cardPresentment(
  card: VerifyCard | undefined,
  emv?: ParsedEmvRequest,
): CardPresentment | undefined {
  const presentment: CardPresentment = {
    ...(emv?.card.sequenceNumber !== undefined ? { sequenceNumber: emv.card.sequenceNumber } : {}),
    ...(emv?.withoutSensitiveTags ? { emvData: emv.withoutSensitiveTags } : {}),
    ...(card?.devicePayment ? { devicePayment: { ...card.devicePayment } } : {}),
  };
  return Object.keys(presentment).length ? presentment : undefined;
}

/** What the acquirer is told for a VERIFY: cardholder, 3-D Secure, agreement, account funding, POS data. */
export function buildVerifyCardRequest(input: {
  merchantId: string;
  orderId: string;
  transactionId: string;
  request: VerifyRequest;
  presentment?: CardPresentment;
  posTerminal?: VerifyPosTerminal;
}): CardlessVerifyCardRequest {
  const { request } = input;
  const cardholder = cardholderOf(request);
  const authentication = externalAuthenticationOf(request.authentication);
  return {
    merchantId: input.merchantId,
    orderId: input.orderId,
    transactionId: input.transactionId,
    currency: request.order.currency,
    ...(input.presentment ? { card: input.presentment } : {}),
    ...(cardholder ? { cardholder } : {}),
    ...(authentication ? { authentication } : {}),
    ...(request.agreement ? { agreement: request.agreement } : {}),
    ...(request.accountFunding ? { accountFunding: request.accountFunding } : {}),
    // POS data goes to the acquirer as given (field by field, as the spec names them).
    ...(input.posTerminal ? { posTerminal: input.posTerminal as AcquirerPosData } : {}),
  };
}

function cardholderOf(request: VerifyRequest): AcquirerCardholder | undefined {
  const billingAddress = request.billing?.address ? addressOf(request.billing.address) : undefined;
  const customer = request.customer;
  if (!billingAddress && !customer) {
    return undefined;
  }
  return { ...(billingAddress ? { billingAddress } : {}), ...customer };
}

function addressOf(address: Address): AcquirerAddress {
  return { ...address };
}

/** Field validation has already run; this catches a value the merged sources made invalid. */
function parsed<T>(field: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof TypeError) {
      throw invalidSensitive(field, err.message);
    }
    throw err;
  }
}
