import type { JsonObject, JsonValue, VerificationStrategy } from '@gateway/contracts';
import { maskPan } from '@gateway/crypto';
import type { TokenRecord } from '@gateway/token-vault/data-access';
import { CardExpiry } from '../cards/card-expiry';
import { cardProfile } from '../cards/card-ranges';
import type { CardInstrument, Instrument } from '../instrument/instrument';
import type { SaveTokenFields } from '../save-token/save-token-fields';

export type TokenResult = 'SUCCESS' | 'FAILURE';

/** Request groups a save returns as sent (spec response table) and never stores. */
export type EchoedFields = Pick<SaveTokenFields, 'billing' | 'customer' | 'device' | 'externalTokenProvider'>;

export interface TokenBodyOptions {
  result: TokenResult;
  /** response.gatewayCode: absent on retrievals. */
  gatewayCode?: string;
  /** The stored instrument, opened: needed for provider_a details and for UNMASK. */
  instrument?: Instrument | null;
  /** Show the full card number (permission, certificate and UNMASK already checked). */
  unmask?: boolean;
  echo?: EchoedFields;
  now: Date;
}

/**
 * A stored token as responses show it (ARCHITECTURE 5): token, repositoryId, status,
 * verificationStrategy, usage, the masked source of funds (expiry MMYY, brand, scheme, funding
 * method), shipping for provider_a tokens, and response/result for saves. Built from the clear
 * columns alone unless provider_a details or an unmasked number are asked for.
 */
export function tokenBody(record: TokenRecord, options: TokenBodyOptions): JsonObject {
  return withoutUndefined({
    ...echoed(options.echo),
    repositoryId: record.repositoryId,
    token: record.token,
    status: effectiveStatus(record, options.now),
    verificationStrategy: record.verificationStrategy,
    usage: withoutUndefined({
      lastUpdated: record.updatedAt.toISOString(),
      lastUpdatedBy: record.updatedBy,
      lastUsed: record.lastUsedAt?.toISOString(),
    }),
    sourceOfFunds: record.sourceType === 'CARD' ? storedCardSource(record, options) : providerASource(options.instrument),
    shipping: options.instrument?.type === 'PROVIDER_A' ? shippingOf(options.instrument) : undefined,
    response: options.gatewayCode ? { gatewayCode: options.gatewayCode } : undefined,
    result: options.result,
  });
}

/**
 * A save that did not store anything (a failed verification or push provisioning): the outcome,
 * the repository, and the request's card masked if there was one.
 */
export function failedSaveBody(input: {
  repositoryId: string;
  token?: string;
  verificationStrategy: VerificationStrategy;
  gatewayCode: string;
  card?: CardInstrument | null;
  echo?: EchoedFields;
}): JsonObject {
  return withoutUndefined({
    ...echoed(input.echo),
    repositoryId: input.repositoryId,
    token: input.token,
    verificationStrategy: input.verificationStrategy,
    sourceOfFunds: input.card ? cardSource(input.card, false) : undefined,
    response: { gatewayCode: input.gatewayCode },
    result: 'FAILURE',
  });
}

/** INVALID once the stored card has expired (or if the token was invalidated). */
function effectiveStatus(record: TokenRecord, now: Date): 'VALID' | 'INVALID' {
  if (record.status === 'INVALID') {
    return 'INVALID';
  }
  return record.cardExpiry && CardExpiry.fromMmyy(record.cardExpiry).isExpired(now) ? 'INVALID' : 'VALID';
}

function storedCardSource(record: TokenRecord, options: TokenBodyOptions): JsonObject {
  const card = options.instrument?.type === 'CARD' ? options.instrument : null;
  return {
    type: 'CARD',
    provided: {
      card: withoutUndefined({
        brand: record.cardBrand ?? 'UNKNOWN',
        scheme: record.cardScheme ?? 'OTHER',
        fundingMethod: record.cardFundingMethod ?? 'UNKNOWN',
        expiry: record.cardExpiry ?? undefined,
        number: options.unmask && card ? card.pan.reveal() : record.cardNumberMasked!,
      }),
    },
  };
}

function cardSource(card: CardInstrument, unmask: boolean): JsonObject {
  const profile = cardProfile(card.pan);
  return {
    type: 'CARD',
    provided: {
      card: withoutUndefined({
        ...profile,
        expiry: card.expiry?.mmyy,
        number: unmask ? card.pan.reveal() : maskPan(card.pan.reveal()),
      }),
    },
  };
}

function providerASource(instrument: Instrument | null | undefined): JsonObject {
  if (instrument?.type !== 'PROVIDER_A') {
    return { type: 'PROVIDER_A' };
  }
  return {
    type: 'PROVIDER_A',
    provided: {
      provider_a: withoutUndefined({
        ...instrument.payer,
        billingAgreement: withoutUndefined({ ...instrument.agreement }),
      }),
    },
  };
}

function shippingOf(instrument: Extract<Instrument, { type: 'PROVIDER_A' }>): JsonObject | undefined {
  const shipping = instrument.shipping;
  return shipping ? (withoutUndefined({ ...shipping }) as JsonObject) : undefined;
}

function echoed(echo: EchoedFields | undefined): Record<string, JsonValue | undefined> {
  if (!echo) {
    return {};
  }
  const ipAddress = echo.device?.ipAddress;
  const customData = echo.externalTokenProvider?.customData;
  return {
    // Validated request groups of plain strings: JSON as they are.
    billing: echo.billing as JsonObject | undefined,
    customer: echo.customer as JsonObject | undefined,
    device: ipAddress !== undefined ? { ipAddress } : undefined,
    externalTokenProvider: customData !== undefined ? { customData } : undefined,
  };
}

/** The record's own keys in their order, those holding undefined left out (one pass, no entry arrays: every save answers with four of these). */
function withoutUndefined(record: Record<string, unknown>): JsonObject {
  const defined: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (value === undefined) {
      continue;
    }
    if (key === '__proto__') {
      // As Object.fromEntries would: an own property, not the prototype.
      Object.defineProperty(defined, key, { value, enumerable: true, writable: true, configurable: true });
    } else {
      defined[key] = value;
    }
  }
  return defined as JsonObject;
}
