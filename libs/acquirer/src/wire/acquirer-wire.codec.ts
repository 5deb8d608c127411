import { JsonObject, TRANSACTION_RESULTS } from '@gateway/contracts';
import type {
  AcquirerAccountFunding,
  AcquirerAgreement,
  AcquirerCard,
  AcquirerCardholder,
  AcquirerOperationContext,
  AcquirerPosData,
  AcquirerTransactionReference,
  AuthorizeCardRequest,
  CaptureRequest,
  CardOperationRequest,
  ExternalAuthentication,
  RefundRequest,
  VerifyCardRequest,
  VoidRequest,
} from '../acquirer-requests';
import type {
  AcquirerTransactionData,
  AuthorizationResponse,
  AuthorizeCardResult,
  CaptureResult,
  CardProfile,
  CardTransactionResult,
  ProcessedTransaction,
  RefundResult,
  VerifyCardResult,
  VoidResult,
} from '../acquirer-results';
import type { FundingMethod } from '../card/card-bin-table';
import type { AcquirerOperation } from '../acquirer-connector';
import { ACQUIRER_GATEWAY_CODES } from '../codes/gateway-codes';
import { AVS_GATEWAY_CODES, CSC_GATEWAY_CODES } from '../codes/verification-codes';
import { AcquirerWireError, defined, moneyToWire, WireReader } from './wire-reader';

/**
 * Acquirer requests and results as they cross NATS (`token-vault.acquirer.call.v1`): a service
 * holding a token or a payment session but no card sends the request without its card
 * details; the token vault completes the card, calls the acquirer and answers the result.
 *
 * - Money travels as `{ value: <decimal string>, currency }`, never as a JS number.
 * - Card details (number, expiry, security code, name on card) never travel in a request:
 *   encoding copies only the card's presentment data (EMV, device payment), and decoding
 *   refuses a request that carries details, so a caller cannot slip a card past the vault.
 * - A result's card is its profile only: the 6.4 mask, brand, scheme, funding method, expiry.
 *   Decoding refuses a card number that is not masked.
 */

/** The card fields the token vault completes (explicit > session > token). */
export type CardDetails = Pick<AcquirerCard, 'number' | 'expiry' | 'securityCode' | 'nameOnCard'>;

/** What else a request says about the card: data of this one presentment, not of the card. */
export type CardPresentment = Omit<AcquirerCard, keyof CardDetails>;

/** Any acquirer request: its context, and a card if the operation presents one. */
type AcquirerRequest = AcquirerOperationContext & { readonly card?: AcquirerCard };

/**
 * An acquirer request without its card details, as a service without the card sends it.
 * (CAPTURE and VOID never have a card: their codecs neither write nor read one.)
 */
export type Cardless<R extends AcquirerRequest> = Omit<R, 'card'> & { readonly card?: CardPresentment };

export interface AcquirerWireCodec<Request extends AcquirerRequest, Result> {
  encodeRequest(request: Cardless<Request>): JsonObject;
  decodeRequest(wire: unknown): Cardless<Request>;
  encodeResult(result: Result): JsonObject;
  decodeResult(wire: unknown): Result;
}

/** The request with the card the vault completed. */
export function withCardDetails<R extends AcquirerRequest>(request: Cardless<R>, details: CardDetails): R {
  const card: AcquirerCard = { ...request.card, ...details };
  // Cardless<R> is R without its card: adding a whole card gives R back.
  return { ...request, card } as unknown as R;
}

const PRESENTMENT_KEYS = ['sequenceNumber', 'emvData', 'devicePayment'] as const;

function presentmentToWire(card: CardPresentment | undefined): JsonObject | undefined {
  if (!card) {
    return undefined;
  }
  // Picked field by field: a full AcquirerCard passed here leaves its details behind.
  const wire = defined({
    sequenceNumber: card.sequenceNumber,
    emvData: card.emvData,
    devicePayment: card.devicePayment ? defined({ ...card.devicePayment }) : undefined,
  });
  return Object.keys(wire).length > 0 ? wire : undefined;
}

function presentmentFromWire(reader: WireReader): CardPresentment | undefined {
  const card = reader.optionalObject('card')?.only(PRESENTMENT_KEYS);
  if (!card) {
    return undefined;
  }
  const device = card.optionalObject('devicePayment')?.only(['eciIndicator', 'onlinePaymentCryptogram']);
  return definedTyped<CardPresentment>({
    sequenceNumber: card.optionalString('sequenceNumber'),
    emvData: card.optionalString('emvData'),
    devicePayment: device
      ? definedTyped({ eciIndicator: device.optionalString('eciIndicator'), onlinePaymentCryptogram: device.optionalString('onlinePaymentCryptogram') })
      : undefined,
  });
}

const CONTEXT_KEYS = ['merchantId', 'orderId', 'transactionId'] as const;

function contextToWire(context: AcquirerOperationContext): JsonObject {
  return { merchantId: context.merchantId, orderId: context.orderId, transactionId: context.transactionId };
}

function contextFromWire(reader: WireReader): AcquirerOperationContext {
  return { merchantId: reader.string('merchantId'), orderId: reader.string('orderId'), transactionId: reader.string('transactionId') };
}

const REFERENCE_KEYS = ['acquirerTransactionId', 'authorizationCode', 'receipt'] as const;

function referenceToWire(reference: AcquirerTransactionReference): JsonObject {
  return defined({ ...reference });
}

function referenceFromWire(reader: WireReader): AcquirerTransactionReference {
  reader.only(REFERENCE_KEYS);
  return definedTyped<AcquirerTransactionReference>({
    acquirerTransactionId: reader.string('acquirerTransactionId'),
    authorizationCode: reader.optionalString('authorizationCode'),
    receipt: reader.optionalString('receipt'),
  });
}

function cardProfileToWire(card: CardProfile): JsonObject {
  return {
    maskedNumber: card.maskedNumber,
    brand: card.brand,
    scheme: card.scheme,
    fundingMethod: card.fundingMethod,
    expiry: { month: card.expiry.month, year: card.expiry.year },
  };
}

const MASKED_NUMBER = /^[0-9]{0,6}x{3,}[0-9]{4}$/;
const FUNDING_METHODS: readonly FundingMethod[] = ['CHARGE', 'CREDIT', 'DEBIT', 'UNKNOWN'];

function cardProfileFromWire(reader: WireReader): CardProfile {
  const maskedNumber = reader.string('maskedNumber');
  if (!MASKED_NUMBER.test(maskedNumber)) {
    throw new AcquirerWireError('result.card.maskedNumber is not a masked card number');
  }
  const expiry = reader.object('expiry');
  return {
    maskedNumber,
    brand: reader.string('brand'),
    scheme: reader.string('scheme'),
    fundingMethod: reader.oneOf('fundingMethod', FUNDING_METHODS),
    expiry: { month: expiry.integer('month'), year: expiry.integer('year') },
  };
}

/** The fields every processed transaction's result has. */
function processedToWire(result: ProcessedTransaction): JsonObject {
  return defined({
    gatewayCode: result.gatewayCode,
    result: result.result,
    acquirerCode: result.acquirerCode,
    acquirerMessage: result.acquirerMessage,
    acquirer: defined({ ...result.acquirer }),
    authorizationResponse: defined({ ...result.authorizationResponse }),
    receipt: result.receipt,
  });
}

function processedFromWire(reader: WireReader): ProcessedTransaction {
  const acquirer = reader.object('acquirer');
  const authorization = reader.object('authorizationResponse');
  return definedTyped({
    gatewayCode: reader.oneOf('gatewayCode', ACQUIRER_GATEWAY_CODES),
    result: reader.oneOf('result', TRANSACTION_RESULTS),
    acquirerCode: reader.optionalString('acquirerCode'),
    acquirerMessage: reader.optionalString('acquirerMessage'),
    acquirer: {
      id: acquirer.string('id'),
      merchantId: acquirer.string('merchantId'),
      transactionId: acquirer.string('transactionId'),
      date: acquirer.string('date'),
      time: acquirer.string('time'),
    } satisfies AcquirerTransactionData,
    authorizationResponse: definedTyped<AuthorizationResponse>({
      commercialCard: authorization.has('commercialCard')
        ? authorization.oneOf('commercialCard', ['COMMERCIAL_CARD', 'NOT_A_COMMERCIAL_CARD', 'UNDETERMINED'] as const)
        : undefined,
      date: authorization.string('date'),
      financialNetworkCode: authorization.optionalString('financialNetworkCode'),
      processingCode: authorization.string('processingCode'),
      responseCode: authorization.optionalString('responseCode'),
      stan: authorization.string('stan'),
      time: authorization.string('time'),
      transactionIdentifier: authorization.string('transactionIdentifier'),
    }),
    receipt: reader.string('receipt'),
  });
}

/** What every request presenting a card says besides its card details. */
const CARD_OPERATION_KEYS = [...CONTEXT_KEYS, 'card', 'cardholder', 'authentication', 'agreement', 'accountFunding', 'posTerminal'] as const;

function cardOperationToWire(request: Cardless<CardOperationRequest>): JsonObject {
  return defined({
    ...contextToWire(request),
    card: presentmentToWire(request.card),
    cardholder: request.cardholder,
    authentication: request.authentication,
    agreement: request.agreement,
    accountFunding: request.accountFunding,
    posTerminal: request.posTerminal,
  });
}

function cardOperationFromWire(reader: WireReader) {
  return definedTyped<Cardless<CardOperationRequest>>({
    ...contextFromWire(reader),
    card: presentmentFromWire(reader),
    cardholder: reader.optionalGroup<AcquirerCardholder>('cardholder'),
    authentication: reader.optionalGroup<ExternalAuthentication>('authentication'),
    agreement: reader.optionalGroup<AcquirerAgreement>('agreement'),
    accountFunding: reader.optionalGroup<AcquirerAccountFunding>('accountFunding'),
    posTerminal: reader.optionalGroup<AcquirerPosData>('posTerminal'),
  });
}

function cardTransactionToWire(result: CardTransactionResult): JsonObject {
  return defined({
    ...processedToWire(result),
    authorizationCode: result.authorizationCode,
    card: cardProfileToWire(result.card),
    cardSecurityCode: defined({ ...result.cardSecurityCode }),
    avs: defined({ ...result.avs }),
  });
}

function cardTransactionFromWire(reader: WireReader): CardTransactionResult {
  const csc = reader.object('cardSecurityCode');
  const avs = reader.object('avs');
  return definedTyped<CardTransactionResult>({
    ...processedFromWire(reader),
    authorizationCode: reader.optionalString('authorizationCode'),
    card: cardProfileFromWire(reader.object('card')),
    cardSecurityCode: definedTyped({ gatewayCode: csc.oneOf('gatewayCode', CSC_GATEWAY_CODES), acquirerCode: csc.optionalString('acquirerCode') }),
    avs: definedTyped({ gatewayCode: avs.oneOf('gatewayCode', AVS_GATEWAY_CODES), acquirerCode: avs.optionalString('acquirerCode') }),
  });
}

/** VERIFY: an account verification, no funds move. */
export const VERIFY_WIRE: AcquirerWireCodec<VerifyCardRequest, VerifyCardResult> = {
  encodeRequest: (request) => ({ ...cardOperationToWire(request), currency: request.currency }),

  decodeRequest: (wire) => {
    const reader = WireReader.of(wire, 'request').only([...CARD_OPERATION_KEYS, 'currency']);
    return { ...cardOperationFromWire(reader), currency: reader.string('currency') };
  },

  encodeResult: cardTransactionToWire,

  decodeResult: (wire) => cardTransactionFromWire(WireReader.of(wire, 'result')),
};

/** AUTHORIZE and PAY: the same request and result, funds reserved or moved. */
const FUNDS_ON_CARD_WIRE: AcquirerWireCodec<AuthorizeCardRequest, AuthorizeCardResult> = {
  encodeRequest: (request) =>
    defined({
      ...cardOperationToWire(request),
      amount: moneyToWire(request.amount),
      acceptPartialAmount: request.acceptPartialAmount,
    }),

  decodeRequest: (wire) => {
    const reader = WireReader.of(wire, 'request').only([...CARD_OPERATION_KEYS, 'amount', 'acceptPartialAmount']);
    return definedTyped<Cardless<AuthorizeCardRequest>>({
      ...cardOperationFromWire(reader),
      amount: reader.money('amount'),
      acceptPartialAmount: reader.optionalBoolean('acceptPartialAmount'),
    });
  },

  encodeResult: (result) =>
    defined({
      ...cardTransactionToWire(result),
      approvedAmount: moneyToWire(result.approvedAmount),
      requestedAmount: moneyToWire(result.requestedAmount),
    }),

  decodeResult: (wire) => {
    const reader = WireReader.of(wire, 'result');
    const approvedAmount = reader.money('approvedAmount');
    const requestedAmount = reader.money('requestedAmount');
    if (approvedAmount.currency !== requestedAmount.currency) {
      throw new AcquirerWireError('result.approvedAmount is not in the currency of result.requestedAmount');
    }
    return { ...cardTransactionFromWire(reader), approvedAmount, requestedAmount };
  },
};

export const AUTHORIZE_WIRE = FUNDS_ON_CARD_WIRE;
export const PAY_WIRE = FUNDS_ON_CARD_WIRE;

/** CAPTURE of an earlier authorisation: no card, the authorisation as the acquirer knows it. */
export const CAPTURE_WIRE: AcquirerWireCodec<CaptureRequest, CaptureResult> = {
  encodeRequest: (request) =>
    defined({
      ...contextToWire(request),
      amount: moneyToWire(request.amount),
      authorization: referenceToWire(request.authorization),
    }),

  decodeRequest: (wire) => {
    const reader = WireReader.of(wire, 'request').only([...CONTEXT_KEYS, 'amount', 'authorization']);
    return { ...contextFromWire(reader), amount: reader.money('amount'), authorization: referenceFromWire(reader.object('authorization')) };
  },

  encodeResult: (result) => defined({ ...processedToWire(result), amount: moneyToWire(result.amount) }),

  decodeResult: (wire) => {
    const reader = WireReader.of(wire, 'result');
    return { ...processedFromWire(reader), amount: reader.money('amount') };
  },
};

const VOID_TARGET_TYPES: readonly VoidRequest['targetType'][] = ['AUTHORIZATION', 'CAPTURE', 'PAYMENT', 'REFUND'];

/** VOID of an earlier transaction: no card, no amount. */
export const VOID_WIRE: AcquirerWireCodec<VoidRequest, VoidResult> = {
  encodeRequest: (request) =>
    defined({
      ...contextToWire(request),
      target: referenceToWire(request.target),
      targetType: request.targetType,
    }),

  decodeRequest: (wire) => {
    const reader = WireReader.of(wire, 'request').only([...CONTEXT_KEYS, 'target', 'targetType']);
    return {
      ...contextFromWire(reader),
      target: referenceFromWire(reader.object('target')),
      targetType: reader.oneOf('targetType', VOID_TARGET_TYPES),
    };
  },

  encodeResult: processedToWire,

  decodeResult: (wire) => processedFromWire(WireReader.of(wire, 'result')),
};

/** REFUND with a card (standalone, or a token or session card): returns funds. */
export const REFUND_WIRE: AcquirerWireCodec<RefundRequest, RefundResult> = {
  encodeRequest: (request) =>
    defined({
      ...contextToWire(request),
      amount: moneyToWire(request.amount),
      original: request.original ? referenceToWire(request.original) : undefined,
      card: presentmentToWire(request.card),
    }),

  decodeRequest: (wire) => {
    const reader = WireReader.of(wire, 'request').only([...CONTEXT_KEYS, 'amount', 'original', 'card']);
    const original = reader.optionalObject('original');
    return definedTyped<Cardless<RefundRequest>>({
      ...contextFromWire(reader),
      amount: reader.money('amount'),
      original: original ? referenceFromWire(original) : undefined,
      card: presentmentFromWire(reader),
    });
  },

  encodeResult: (result) =>
    defined({
      ...processedToWire(result),
      amount: moneyToWire(result.amount),
      card: result.card ? cardProfileToWire(result.card) : undefined,
    }),

  decodeResult: (wire) => {
    const reader = WireReader.of(wire, 'result');
    const card = reader.optionalObject('card');
    return definedTyped<RefundResult>({
      ...processedFromWire(reader),
      amount: reader.money('amount'),
      card: card ? cardProfileFromWire(card) : undefined,
    });
  },
};

/**
 * The codec of each acquirer operation. The vault's acquirer call takes the card operations
 * (VERIFY, AUTHORIZE, PAY, REFUND); CAPTURE and VOID carry no card, so their codecs serve a
 * connector that sits in another process.
 */
export const ACQUIRER_WIRE = {
  VERIFY: VERIFY_WIRE,
  AUTHORIZE: AUTHORIZE_WIRE,
  PAY: PAY_WIRE,
  CAPTURE: CAPTURE_WIRE,
  VOID: VOID_WIRE,
  REFUND: REFUND_WIRE,
} as const satisfies Record<AcquirerOperation, object>;

/** Drops undefined entries, so an absent optional field is absent rather than `undefined`. */
function definedTyped<T>(entries: { [K in keyof T]: T[K] | undefined }): T {
  return defined(entries as Record<string, unknown>) as unknown as T;
}
