import {
  AcquirerAddress,
  AcquirerCard,
  AcquirerCardholder,
  ExternalAuthentication,
  Pan,
  parseCardExpiry,
  SecurityCode,
  VerifyCardRequest,
} from '@gateway/acquirer';
import type { ParsedEmvRequest } from '../rules/emv-request.rule';
import { invalidSensitiveValue, missingField } from '../rules/field-errors';
import type { AddressData, CardData, PosTerminalData, VerifyRequestData } from '../verify-request';

const CARD = 'sourceOfFunds.provided.card';

/**
 * The card the acquirer verifies, from the request's card fields once explicit, session,
 * token and EMV sources are merged. From here on the number and security code only exist as
 * Pan and SecurityCode, which print masked.
 */
export function toAcquirerCard(card: CardData, emv?: ParsedEmvRequest): AcquirerCard {
  if (card.number === undefined) {
    throw missingField(`${CARD}.number`, 'A card number is required to verify a card.');
  }
  if (card.expiry === undefined) {
    throw missingField(`${CARD}.expiry`, 'The card expiry is required to verify a card.');
  }
  return {
    number: parsed(`${CARD}.number`, () => Pan.of(card.number!)),
    expiry: parsed(`${CARD}.expiry`, () => parseCardExpiry(card.expiry!.month, card.expiry!.year)),
    ...(card.securityCode !== undefined
      ? { securityCode: parsed(`${CARD}.securityCode`, () => SecurityCode.of(card.securityCode!)) }
      : {}),
    ...(card.nameOnCard !== undefined ? { nameOnCard: card.nameOnCard } : {}),
    ...(card.sequenceNumber !== undefined ? { sequenceNumber: card.sequenceNumber } : {}),
    ...(emv?.withoutSensitiveTags ? { emvData: emv.withoutSensitiveTags } : {}),
    ...(card.devicePayment ? { devicePayment: card.devicePayment } : {}),
  };
}

/** What the acquirer is told for a VERIFY: card, cardholder, 3-D Secure, agreement, POS data. */
export function buildVerifyCardRequest(input: {
  merchantId: string;
  orderId: string;
  transactionId: string;
  request: VerifyRequestData;
  card: AcquirerCard;
  posTerminal?: PosTerminalData;
}): VerifyCardRequest {
  const { request } = input;
  const cardholder = cardholderOf(request);
  const authentication = authenticationOf(request);
  return {
    merchantId: input.merchantId,
    orderId: input.orderId,
    transactionId: input.transactionId,
    currency: request.order.currency,
    card: input.card,
    ...(cardholder ? { cardholder } : {}),
    ...(authentication ? { authentication } : {}),
    ...(request.agreement ? { agreement: request.agreement } : {}),
    ...(request.accountFunding ? { accountFunding: request.accountFunding } : {}),
    ...(input.posTerminal ? { posTerminal: input.posTerminal as Record<string, unknown> } : {}),
  };
}

function cardholderOf(request: VerifyRequestData): AcquirerCardholder | undefined {
  const billingAddress = request.billing?.address ? addressOf(request.billing.address) : undefined;
  const customer = request.customer;
  if (!billingAddress && !customer) {
    return undefined;
  }
  return { ...(billingAddress ? { billingAddress } : {}), ...customer };
}

function addressOf(address: AddressData): AcquirerAddress {
  return { ...address };
}

function authenticationOf(request: VerifyRequestData): ExternalAuthentication | undefined {
  const authentication = request.authentication;
  if (!authentication) {
    return undefined;
  }
  return {
    ...(authentication['3ds'] ? { threeDs: authentication['3ds'] } : {}),
    ...(authentication['3ds2'] ? { threeDs2: authentication['3ds2'] } : {}),
    ...(authentication.transactionId !== undefined ? { transactionId: authentication.transactionId } : {}),
  };
}

/** Field validation has already run; this catches a value the merged sources made invalid. */
function parsed<T>(field: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof TypeError) {
      throw invalidSensitiveValue(field, err.message);
    }
    throw err;
  }
}
