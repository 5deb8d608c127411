import { expiryForResponse, VerifyCardResult } from '@gateway/acquirer';
import type {
  Address,
  Agreement,
  AvsResponseCodeRule,
  ExternalAuthentication,
  JsonObject,
  TransactionResult,
  VerifyPosTerminal,
  VerifyRequest,
} from '@gateway/contracts';
import { Money } from '@gateway/money';
import type { ParsedEmvRequest } from '../rules/emv-request.rule';
import { deriveSameAsBilling } from '../rules/shipping-same-as-billing.rule';
import { applyAvsFiltering, AvsFilteringDecision } from '../rules/transaction-filtering.rule';

export interface VerifyResponseInput {
  readonly merchantId: string;
  readonly orderId: string;
  readonly transactionId: string;
  readonly request: VerifyRequest;
  /**
   * What the response shows of the card besides the acquirer's card profile (masked number,
   * brand, scheme, funding method, expiry): the name on the card (explicit, or the stored
   * card's) and the EMV sequence number.
   */
  readonly card: { readonly nameOnCard?: string; readonly sequenceNumber?: string };
  readonly emv?: ParsedEmvRequest;
  /** `posTerminal` as sent, with fields filled from EMV tags. */
  readonly posTerminal?: VerifyPosTerminal;
  readonly cardType?: string;
  readonly acquirerResult: VerifyCardResult;
  /** The merchant profile's AVS rules (`transactionFiltering.avsResponseCodeRules`). */
  readonly merchantAvsRules: readonly AvsResponseCodeRule[];
  readonly now: Date;
}

/** What the ledger records for the transaction, besides the response body. */
export interface VerifyOutcome {
  readonly type: 'VERIFICATION';
  readonly amount: string;
  readonly currency: string;
  readonly gatewayCode: string;
  readonly result: TransactionResult;
  readonly filtering?: AvsFilteringDecision;
}

export interface VerifyResponseParts {
  readonly body: JsonObject;
  readonly outcome: VerifyOutcome;
}

const REQUESTOR_ID_LENGTH = 35;
const REQUESTOR_NAME_LENGTH = 40;
const STREET_LENGTH = 100;

/**
 * The VERIFY response body (without `merchant`, `version`, `correlationId`, which the edge
 * adds) and the outcome to record. No funds move: `order.amount` and `transaction.amount`
 * are 0. The ledger adds `order.status` (VERIFIED once a verification succeeded) and the
 * totals when it records the transaction. The card is masked 6.4: a reply with UNMASK adds
 * the full number after the ledger stored the masked body.
 */
export function assembleVerifyResponse(input: VerifyResponseInput): VerifyResponseParts {
  const { request, acquirerResult: acquirer } = input;
  const currency = request.order.currency;
  const filtered = applyAvsFiltering({
    gatewayCode: acquirer.gatewayCode,
    avsCode: acquirer.avs.gatewayCode,
    requestRules: request.order.transactionFiltering?.avsResponseCodeRules,
    merchantRules: input.merchantAvsRules,
  });
  const zero = Money.zero(currency);
  const body: JsonObject = {
    authorizationResponse: { ...acquirer.authorizationResponse },
    order: orderGroup(input, zero),
    response: responseGroup(acquirer, filtered.gatewayCode),
    result: filtered.result,
    sourceOfFunds: sourceOfFundsGroup(input),
    timeOfRecord: input.now.toISOString(),
    transaction: transactionGroup(input, zero, filtered.result),
  };
  const optional: Record<string, JsonObject | string | undefined> = {
    accountFunding: request.accountFunding as JsonObject | undefined,
    agreement: request.agreement ? agreementForResponse(request.agreement, currency) : undefined,
    authentication: authenticationGroup(request.authentication, input.merchantId, currency),
    billing: request.billing?.address ? { address: addressForResponse(request.billing.address) } : undefined,
    customer: request.customer as JsonObject | undefined,
    device: request.device as JsonObject | undefined,
    partnerSolutionId: request.partnerSolutionId,
    posTerminal: input.posTerminal as JsonObject | undefined,
    risk: filtered.filtering ? riskGroup(filtered.filtering, acquirer.avs.acquirerCode) : undefined,
    shipping: shippingGroup(request),
  };
  for (const [key, group] of Object.entries(optional)) {
    if (group !== undefined) {
      body[key] = group;
    }
  }
  return {
    body,
    outcome: {
      type: 'VERIFICATION',
      amount: zero.toFixed(),
      currency,
      gatewayCode: filtered.gatewayCode,
      result: filtered.result,
      ...(filtered.filtering ? { filtering: filtered.filtering } : {}),
    },
  };
}

/** The request's order fields the response (and the order's retrieval) gives back as sent. */
export const ECHOED_ORDER_FIELDS = [
  'custom',
  'customerNote',
  'customerOrderDate',
  'customerReference',
  'description',
  'purchaseType',
  'reference',
  'requestorName',
  'taxRegistrationId',
  'taxStatus',
  'walletIndicator',
  'walletProvider',
] as const;

function orderGroup(input: VerifyResponseInput, zero: Money): JsonObject {
  const { order } = input.request;
  const echoed = pick(order, ECHOED_ORDER_FIELDS);
  return {
    ...echoed,
    amount: zero.toJSON(),
    currency: order.currency,
    id: input.orderId,
  };
}

/**
 * An approval code only on a verification that succeeded: when an AVS REJECT rule declines
 * what the issuer approved (DECLINED_AVS), the gateway declined it: a merchant reading the code
 * must not take it for an approval (docs/test-acquirer.md: approval codes on approvals only).
 * The issuer's own answer stays in `authorizationResponse` and `response.acquirerCode`.
 */
function transactionGroup(input: VerifyResponseInput, zero: Money, result: TransactionResult): JsonObject {
  const { acquirerResult: acquirer } = input;
  return {
    ...pick(input.request.transaction ?? {}, ['merchantNote', 'reference', 'source']),
    acquirer: { ...acquirer.acquirer },
    amount: zero.toJSON(),
    ...(acquirer.authorizationCode && result === 'SUCCESS' ? { authorizationCode: acquirer.authorizationCode } : {}),
    currency: input.request.order.currency,
    id: input.transactionId,
    receipt: acquirer.receipt,
    type: 'VERIFICATION',
  };
}

function responseGroup(acquirer: VerifyCardResult, gatewayCode: string): JsonObject {
  return {
    ...(acquirer.acquirerCode ? { acquirerCode: acquirer.acquirerCode } : {}),
    ...(acquirer.acquirerMessage ? { acquirerMessage: acquirer.acquirerMessage } : {}),
    cardSecurityCode: { ...acquirer.cardSecurityCode },
    cardholderVerification: { avs: { ...acquirer.avs } },
    gatewayCode,
  };
}

function sourceOfFundsGroup(input: VerifyResponseInput): JsonObject {
  const { card, acquirerResult, request } = input;
  const profile = acquirerResult.card;
  const provided: JsonObject = {
    brand: profile.brand,
    expiry: expiryForResponse(profile.expiry),
    fundingMethod: profile.fundingMethod,
    number: profile.maskedNumber,
    scheme: profile.scheme,
  };
  if (card.nameOnCard !== undefined) provided.nameOnCard = card.nameOnCard;
  if (card.sequenceNumber !== undefined) provided.sequenceNumber = card.sequenceNumber.padStart(3, '0');
  if (input.cardType !== undefined) provided.cardType = input.cardType;
  // The spec: the response omits PCI-sensitive EMV fields (the PAN and expiry tags).
  if (input.emv?.withoutSensitiveTags) provided.emvRequest = input.emv.withoutSensitiveTags;
  return {
    provided: { card: provided },
    ...(request.sourceOfFunds.token !== undefined ? { token: request.sourceOfFunds.token } : {}),
    type: 'CARD',
  };
}

/**
 * The agreement as the verify response table returns it (AUTHORIZE and PAY answer it the same
 * way); amounts as JSON numbers.
 */
export function agreementForResponse(agreement: Agreement, currency: string): JsonObject {
  const group: JsonObject = pick(agreement, [
    'amountVariability',
    'customData',
    'expiryDate',
    'id',
    'minimumDaysBetweenPayments',
    'numberOfPayments',
    'paymentFrequency',
    'startDate',
    'type',
  ]);
  if (agreement.retailer) group.retailer = { ...agreement.retailer };
  for (const field of ['maximumAmountPerPayment', 'minimumAmountPerPayment'] as const) {
    if (agreement[field] !== undefined) group[field] = Money.of(agreement[field]!, currency).toJSON();
  }
  return group;
}

/**
 * External 3-D Secure data, echoed where the verify response has it. In the 3ds2 group the
 * spec always provides methodCompleted, methodSupported, requestorId and requestorName: no
 * 3DS method ran here (the payer was authenticated elsewhere), and requestor id and name are
 * generated from the merchant id as the spec allows for schemes that do not supply them.
 */
function authenticationGroup(
  authentication: ExternalAuthentication | undefined,
  merchantId: string,
  currency: string,
): JsonObject | undefined {
  if (!authentication) {
    return undefined;
  }
  const group: JsonObject = pick(authentication, ['transactionId']);
  // A DateTime is answered in the spec's one form (YYYY-MM-DDThh:mm:ss.SSSZ), whatever offset it was sent with.
  if (authentication.time !== undefined) group.time = new Date(authentication.time).toISOString();
  if (authentication['3ds']) group['3ds'] = { ...authentication['3ds'] };
  if (authentication['3ds2']) {
    group['3ds2'] = {
      ...pick(authentication['3ds2'], [
        'acsTransactionId',
        'authenticationScheme',
        'custom',
        'dsReference',
        'protocolVersion',
        'statusReasonCode',
        'transactionStatus',
      ]),
      methodCompleted: false,
      methodSupported: 'NOT_SUPPORTED',
      requestorId: merchantId.slice(0, REQUESTOR_ID_LENGTH),
      requestorName: merchantId.slice(0, REQUESTOR_NAME_LENGTH),
    };
    group.version = '3DS2';
  }
  if (authentication.amount !== undefined) group.amount = Money.of(authentication.amount, currency).toJSON();
  return Object.keys(group).length ? group : undefined;
}

function shippingGroup(request: VerifyRequest): JsonObject | undefined {
  const shipping = request.shipping;
  const sameAsBilling = deriveSameAsBilling(request.billing?.address, shipping?.address);
  if (!shipping && sameAsBilling === undefined) {
    return undefined;
  }
  const group: JsonObject = pick(shipping ?? {}, ['method']);
  if (shipping?.contact) group.contact = { ...shipping.contact };
  if (shipping?.origin) group.origin = { ...shipping.origin };
  const address: JsonObject = shipping?.address
    ? { ...addressForResponse(shipping.address), ...pick(shipping.address, ['source']) }
    : {};
  if (sameAsBilling !== undefined) address.sameAsBilling = sameAsBilling;
  if (Object.keys(address).length) group.address = address;
  return group;
}

/** Transaction responses carry street and street2 joined in `street` (truncated), street2 empty. */
function addressForResponse(address: Address): JsonObject {
  const fields = pick(address, [
    'city',
    'company',
    'country',
    'postcodeZip',
    'stateProvince',
    'stateProvinceCode',
  ]);
  const street = [address.street, address.street2]
    .filter((line) => line !== undefined && line !== '')
    .join(' ');
  return street ? { ...fields, street: street.slice(0, STREET_LENGTH) } : fields;
}

/**
 * Transaction filtering's decision, as the real gateway reports risk rules:
 * `risk.response.gatewayCode` and the AVS rule that fired (docs/decisions/avs-review-in-risk-response.md).
 */
function riskGroup(decision: AvsFilteringDecision, avsAcquirerCode: string | undefined): JsonObject {
  const gatewayCode =
    decision.action === 'REJECT' ? 'REJECTED' : decision.action === 'REVIEW' ? 'REVIEW_REQUIRED' : 'ACCEPTED';
  return {
    response: {
      gatewayCode,
      ...(decision.action === 'REVIEW' ? { review: { decision: 'PENDING' } } : {}),
      rule: [
        {
          data: avsAcquirerCode ?? decision.avsResponseCode,
          name: 'AVS',
          recommendation: decision.action,
          type: 'MSO_AVS',
        },
      ],
    },
  };
}

function pick<T extends object, K extends keyof T>(source: T, keys: readonly K[]): JsonObject {
  const out: JsonObject = {};
  for (const key of keys) {
    const value = source[key];
    if (value !== undefined) {
      out[key as string] = value as JsonObject[string];
    }
  }
  return out;
}
