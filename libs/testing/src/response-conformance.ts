/**
 * Response conformance: the spec's rules for merchant REST API answers, as data, and the
 * checker every e2e call applies (apps/gateway-e2e gateway-client.ts `call`). It lives with the
 * shared test helpers so that a service's own tests can hold a body it stores to the same rules
 * (a card operation's PENDING reservation body: card-payments.int-spec.ts).
 *
 * Sources (section names of the interface spec, docs/spec/gateway-api.md in its shared form;
 * the spec is not read at run time, its rules are written down here):
 * - "Conventions" (field type shorthands), "Create or update token: response fields",
 *   "Refund: response fields (as visible)", "Verify: response fields (as visible)",
 *   "Shared response groups (initiate and confirm; fragments in refund)", "Errors",
 *   "States and transitions", "Versioning".
 * - ARCHITECTURE (section 4, HTTP contract; 5, domain rules) and docs/decisions/*, for what the
 *   spec leaves open. Every departure from the spec is a named entry of EXCEPTIONS below,
 *   never a silent allowance.
 *
 * Unknown fields: the spec lists response fields per operation and says which ranges of them
 * are "not shown" (its tables are in alphabetical order, so a range is a range of field
 * paths). A field the rules do not know is accepted only inside such a range of its
 * operation, or under a named exception; anywhere else it is a violation.
 *
 * Messages never carry a card number: every value printed goes through `shown`, which hides
 * any run of 9 or more digits.
 */

// ---------------------------------------------------------------------------------------------
// Field types ("Conventions" table)
// ---------------------------------------------------------------------------------------------

export interface FieldType {
  /** The spec's notation, for messages. */
  readonly name: string;
  /** A reason when the value does not conform, undefined when it does. */
  check(value: unknown): string | undefined;
}

const isString = (value: unknown): value is string => typeof value === 'string';

function stringOf(name: string, min: number, max: number, chars?: RegExp): FieldType {
  return {
    name,
    check: (value) => {
      if (!isString(value)) return `expected a JSON string, got ${typeName(value)}`;
      if (value.length < min || value.length > max) return `length ${value.length} is outside ${min}-${max}`;
      if (chars && !chars.test(value)) return 'has characters the type does not allow';
      return undefined;
    },
  };
}

/** String(a-b): any characters. */
export const str = (min: number, max: number): FieldType => stringOf(`String(${min}-${max})`, min, max);
/** ASCII(a-b). */
export const ascii = (min: number, max: number): FieldType => stringOf(`ASCII(${min}-${max})`, min, max, /^[\x00-\x7f]*$/);
/** Alnum(a-b): 0-9 a-z A-Z. */
export const alnum = (min: number, max: number): FieldType => stringOf(`Alnum(${min}-${max})`, min, max, /^[0-9a-zA-Z]*$/);
/** Digits(a-b): a string of 0-9. */
export const digits = (min: number, max: number): FieldType => stringOf(`Digits(${min}-${max})`, min, max, /^[0-9]*$/);
/** Upper3: ISO 3-letter country or currency code. */
export const upper3: FieldType = stringOf('Upper3', 3, 3, /^[A-Z]{3}$/);
/** Date: yyyy-mm-dd. */
export const date: FieldType = stringOf('Date', 10, 10, /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/);
/** DateTime: YYYY-MM-DDThh:mm:ss.SSSZ. */
export const dateTime: FieldType = stringOf('DateTime', 24, 24, /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/);
/** Email: longer than 3 characters, an address. */
export const email: FieldType = stringOf('Email', 4, 254, /^[^\s@]+@[^\s@]+$/);
/** Url: begins with https, longer than 11 characters. */
export const url: FieldType = stringOf('Url', 12, 2048, /^https/);
/** Response telephone numbers: String(1-20) in responses (token, refund, shared shipping). */
export const phone: FieldType = str(1, 20);
/** Address postcodeZip: 0-9 a-z A-Z ' ' '-', 1-10. */
export const postcodeZip: FieldType = stringOf("postcode(1-10, 0-9 a-z A-Z ' ' '-')", 1, 10, /^[0-9a-zA-Z -]*$/);
/** Base64 of the given lengths. */
export const base64 = (...lengths: number[]): FieldType => ({
  name: `Base64(${lengths.join(' or ')})`,
  check: (value) => {
    if (!isString(value)) return `expected a JSON string, got ${typeName(value)}`;
    if (!lengths.includes(value.length)) return `length ${value.length} is not ${lengths.join(' or ')}`;
    return /^[A-Za-z0-9+/]*={0,2}$/.test(value) ? undefined : 'is not Base64';
  },
});

export const bool: FieldType = {
  name: 'Boolean',
  check: (value) => (typeof value === 'boolean' ? undefined : `expected JSON true or false, got ${typeName(value)}`),
};

/** Int: a JSON integer within bounds. */
export const int = (min: number, max: number): FieldType => ({
  name: `Int(${min}-${max})`,
  check: (value) => {
    if (typeof value !== 'number' || !Number.isInteger(value)) return `expected a JSON integer, got ${typeName(value)}`;
    return value < min || value > max ? `value is outside ${min}-${max}` : undefined;
  },
});

/** A JSON number with bounds and at most `decimals` digits after the point (no binary-float artefacts). */
export const decimal = (name: string, min: number, max: number, decimals: number): FieldType => ({
  name,
  check: (value) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return `expected a JSON decimal number, got ${typeName(value)}`;
    if (value < min || value > max) return `value is outside ${min} to ${max}`;
    const text = String(value);
    if (/e/i.test(text)) return 'is not a plain decimal';
    const fraction = text.split('.')[1] ?? '';
    return fraction.length > decimals ? `has ${fraction.length} digits after the point (at most ${decimals})` : undefined;
  },
});

/** DecOut: JSON decimal number, 0 to 1000000000000, at most 3 digits after the point. */
export const decOut: FieldType = decimal('DecOut', 0, 1_000_000_000_000, 3);
/** Line item unitPrice / unitTaxAmount in responses: DecOut with range -1000000000000 to 1000000000000. */
export const signedDecOut: FieldType = decimal('DecOut(-1000000000000 to 1000000000000)', -1_000_000_000_000, 1_000_000_000_000, 3);

export function oneOf(values: readonly string[], name = 'enum'): FieldType {
  return {
    name: `${name}(${values.length <= 6 ? values.join(', ') : `${values.length} values`})`,
    check: (value) => {
      if (!isString(value)) return `expected a JSON string, got ${typeName(value)}`;
      return values.includes(value) ? undefined : 'is not one of the enumeration values';
    },
  };
}

/** Card or account number in a response: 0-9 and 'x', 9-19 long (Shared response groups, sourceOfFunds). */
export const maskedNumber: FieldType = stringOf("number(9-19, 0-9 'x')", 9, 19, /^[0-9x]*$/);

/** A group (JSON object) of fields; its members have rules of their own. */
export const group: FieldType = {
  name: 'group',
  check: (value) => (value !== null && typeof value === 'object' && !Array.isArray(value) ? undefined : `expected a JSON object, got ${typeName(value)}`),
};
/** An array of groups (`name[n]`). */
export const groups: FieldType = {
  name: 'array of groups',
  check: (value) => (Array.isArray(value) ? undefined : `expected a JSON array, got ${typeName(value)}`),
};
/** An array of values of one type (`supported[n]`). */
export const arrayOf = (item: FieldType): FieldType => ({
  name: `array of ${item.name}`,
  check: (value) => {
    if (!Array.isArray(value)) return `expected a JSON array, got ${typeName(value)}`;
    for (const [i, element] of value.entries()) {
      const problem = item.check(element);
      if (problem) return `element ${i} ${problem}`;
    }
    return undefined;
  },
});

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

// ---------------------------------------------------------------------------------------------
// Enumerations
// ---------------------------------------------------------------------------------------------

/** "Shared response groups", result: FAILURE, PENDING, SUCCESS, UNKNOWN (and ERROR on error responses, "Errors"). */
export const RESULT = ['FAILURE', 'PENDING', 'SUCCESS', 'UNKNOWN'] as const;

/** "Create or update token: response fields", response.gatewayCode values. */
export const TOKEN_GATEWAY_CODES = [
  'BASIC_VERIFICATION_SUCCESSFUL',
  'EXTERNAL_VERIFICATION_BLOCKED',
  'EXTERNAL_VERIFICATION_DECLINED',
  'EXTERNAL_VERIFICATION_DECLINED_AUTHENTICATION_REQUIRED',
  'EXTERNAL_VERIFICATION_DECLINED_EXPIRED_CARD',
  'EXTERNAL_VERIFICATION_DECLINED_INVALID_CSC',
  'EXTERNAL_VERIFICATION_PROCESSING_ERROR',
  'EXTERNAL_VERIFICATION_SUCCESSFUL',
  'NO_VERIFICATION_PERFORMED',
  'SCHEME_TOKENIZATION_DECLINED',
  'SCHEME_TOKENIZATION_ERROR',
  'SCHEME_TOKENIZATION_SUCCESSFUL',
  'SCHEME_TOKENIZATION_SUCCESSFUL_ADDITIONAL_AUTHENTICATION_REQUIRED',
] as const;

/** "Shared response groups", response.gatewayCode. */
export const GATEWAY_CODES = [
  'ABORTED',
  'ACQUIRER_SYSTEM_ERROR',
  'APPROVED',
  'APPROVED_PENDING_SETTLEMENT',
  'AUTHENTICATION_FAILED',
  'BLOCKED',
  'CANCELLED',
  'DECLINED',
  'DECLINED_AVS',
  'DECLINED_AVS_CSC',
  'DECLINED_CSC',
  'DECLINED_DO_NOT_CONTACT',
  'DECLINED_PAYMENT_PLAN',
  'DEFERRED_TRANSACTION_RECEIVED',
  'DUPLICATE_BATCH',
  'EXCEEDED_RETRY_LIMIT',
  'EXPIRED_CARD',
  'INSUFFICIENT_FUNDS',
  'INVALID_CSC',
  'LOCK_FAILURE',
  'NOT_ENROLLED_3D_SECURE',
  'NOT_SUPPORTED',
  'PARTIALLY_APPROVED',
  'PENDING',
  'REFERRED',
  'SYSTEM_ERROR',
  'TIMED_OUT',
  'UNKNOWN',
  'UNSPECIFIED_FAILURE',
] as const;

/** "Verify: request fields", avsResponseCode (the 12 AVS values the shared response group refers to). */
export const AVS_CODES = [
  'ADDRESS_MATCH',
  'ADDRESS_ZIP_MATCH',
  'NAME_ADDRESS_MATCH',
  'NAME_MATCH',
  'NAME_ZIP_MATCH',
  'NOT_AVAILABLE',
  'NOT_REQUESTED',
  'NOT_VERIFIED',
  'NO_MATCH',
  'SERVICE_NOT_AVAILABLE_RETRY',
  'SERVICE_NOT_SUPPORTED',
  'ZIP_MATCH',
] as const;

/** "States and transitions", order status: the visible values. */
export const ORDER_STATUS_VISIBLE = [
  'CAPTURED',
  'EXCESSIVELY_REFUNDED',
  'FAILED',
  'INITIATED',
  'PARTIALLY_CAPTURED',
  'PARTIALLY_REFUNDED',
  'REFUNDED',
  'REFUND_REQUESTED',
  'VERIFIED',
] as const;

export const TRANSACTION_TYPES = [
  'AUTHORIZATION',
  'AUTHORIZATION_UPDATE',
  'CAPTURE',
  'PAYMENT',
  'REFUND',
  'REFUND_REQUEST',
  'VERIFICATION',
  'VOID_AUTHORIZATION',
  'VOID_CAPTURE',
  'VOID_PAYMENT',
  'VOID_REFUND',
] as const;

/** "Errors". */
export const ERROR_CAUSES = ['INVALID_REQUEST', 'REQUEST_REJECTED', 'SERVER_BUSY', 'SERVER_FAILED'] as const;
export const VALIDATION_TYPES = ['INVALID', 'MISSING', 'UNSUPPORTED'] as const;

// ---------------------------------------------------------------------------------------------
// Departures the project decided (ARCHITECTURE, docs/decisions). Each is named and cited; the
// rules below refer to them by name.
// ---------------------------------------------------------------------------------------------

export const EXCEPTIONS = {
  /** ARCHITECTURE 5 (Browser payments): until completed a browser payment is PENDING with gateway code SUBMITTED, a value not in the spec's enumeration. */
  SUBMITTED: 'ARCHITECTURE 5, Browser payments: response.gatewayCode SUBMITTED while a browser payment is pending',
  /**
   * ARCHITECTURE 4.10: order status also takes AUTHORIZED and CANCELLED. The spec says values
   * listed before CAPTURED are not shown, and both sort before it, so this fills a gap rather
   * than contradicting the spec.
   */
  ORDER_STATUS: 'ARCHITECTURE 4.10: order status AUTHORIZED and CANCELLED (spec: values before CAPTURED not shown)',
  /** ARCHITECTURE 4.5 / api-response.ts: `merchant` and `version` on every body, also where the spec's token table has no such field. */
  MERCHANT_AND_VERSION: 'ARCHITECTURE 4.5: merchant and version added to every response',
  /** ARCHITECTURE 4.5 / 4.10: what every order operation's answer carries beyond the spec's ALWAYS PROVIDED fields. */
  ORDER_OPERATION_FIELDS: 'ARCHITECTURE 4.5, 4.10: order, response, timeOfRecord, transaction and the three order totals on every order operation',
  /**
   * ARCHITECTURE 5 (Tokens): token responses carry token, status, verificationStrategy, usage
   * and the masked sourceOfFunds with expiry as MMYY. All sort after the scheme token group,
   * which the spec's token table leaves "not shown", so they are typed here, not exempted.
   */
  TOKEN_FIELDS: 'ARCHITECTURE 5, Tokens: token, status, verificationStrategy, usage, masked sourceOfFunds (expiry MMYY)',
  /** docs/api-extensions.md: operations beyond the spec (AUTHORIZE, PAY, CAPTURE, VOID; token POST, GET, DELETE; sessions; retrievals). No response table exists for them in the spec: known fields are typed with the spec's groups, unknown ones are accepted. */
  EXTENSION_OPERATIONS: 'docs/api-extensions.md: operations beyond the spec answer with the spec groups; no field list to be strict against',
  /**
   * docs/api-extensions.md (Responses): VERIFY's transaction groups (response, result,
   * transaction, order, sourceOfFunds...) sort after authorizationResponse, a range its table
   * leaves "not shown"; the shared response groups' types are applied to them as to every
   * order operation.
   */
  SHARED_GROUPS_FOR_VERIFY: 'docs/api-extensions.md: VERIFY answers with the shared response groups',
  /**
   * ARCHITECTURE 4.6: every operation is accepted on versions 29 to 100, not only the version
   * its spec reference names; its response rules are the same whatever the version.
   */
  ANY_VERSION: 'ARCHITECTURE 4.6: operations on every version 29-100, same response rules',
  /**
   * ARCHITECTURE 4.1: HTTP status per outcome (201 processed, 200 retrievals, 400/401/404/405
   * INVALID_REQUEST, 403 REQUEST_REJECTED with supportCode, 503 SERVER_BUSY, 500 SERVER_FAILED
   * with supportCode). The spec does not show status codes ("Errors", rule 5).
   */
  STATUS_CODES: 'ARCHITECTURE 4.1: HTTP status codes per outcome',
  /** ARCHITECTURE 4.5: keys in alphabetical order at every level. */
  SORTED_KEYS: 'ARCHITECTURE 4.5: keys sorted at every level',
  /**
   * docs/decisions/lock-failure-response.md (amended 2026-11-26): a LOCK_FAILURE answer names
   * the acquirer of its target, the one the request and the merchant's profile route it to
   * (VERIFY, AUTHORIZE, PAY, INITIATE_BROWSER_PAYMENT, a standalone REFUND), or the one the
   * order's transactions name. A follow-on operation (CAPTURE, VOID, CONFIRM_BROWSER_PAYMENT, a
   * REFUND naming a target or giving no sourceOfFunds) goes to its target's acquirer; on an
   * order the edge could not read (not created yet, or the ledger did not answer) it cannot see
   * the target, and leaves `transaction.acquirer` out rather than guess it (spec: ALWAYS
   * PROVIDED). Accepted only there: a LOCK_FAILURE whose order group has no status, answering
   * one of those operations. (A live merchant, with no acquirer configured, would leave it out
   * on any operation; no e2e test has one refused with LOCK_FAILURE, so nothing is accepted for it.)
   */
  LOCK_FAILURE_UNSEEN_TARGET_ACQUIRER:
    'docs/decisions/lock-failure-response.md: a follow-on operation refused with LOCK_FAILURE on an order the edge could not read has no target whose acquirer it could name',
  /**
   * docs/decisions/lock-failure-response.md (amended 2026-11-26 (2)): a LOCK_FAILURE answered
   * when the ledger did not answer the edge's read of the order leaves the order's totals out:
   * the order may hold funds, and zero would say it holds none (spec: ALWAYS PROVIDED). Accepted
   * only on a LOCK_FAILURE whose order group has no status (not read).
   */
  LOCK_FAILURE_UNREAD_ORDER_TOTALS:
    'docs/decisions/lock-failure-response.md: a LOCK_FAILURE on an order the ledger did not answer for does not show totals it cannot know',
  /**
   * The e2e gateway runs on plain http (no TLS terminator in front of it), so the URLs it
   * builds from its PUBLIC_BASE_URL (browserPayment.redirectUrl) begin with http. The spec's
   * Url type begins with https; the check accepts http only for the run's own base URL.
   */
  TEST_BASE_URL_HTTP: 'e2e environment: the gateway under test is reached over http, so its own redirect URLs are http',
} as const;

export type ExceptionName = keyof typeof EXCEPTIONS;

// ---------------------------------------------------------------------------------------------
// Response field rules. Paths are dotted; `[]` is an element of an array of groups; `*` is any
// one name (order.custom.<name>). `always` is ALWAYS PROVIDED: present whenever its parent
// group is (top-level fields: always).
// ---------------------------------------------------------------------------------------------

export interface FieldRule {
  readonly type: FieldType;
  readonly always?: boolean;
  /** Allowed only with a named departure. */
  readonly exception?: ExceptionName;
}

export type FieldRules = Readonly<Record<string, FieldRule>>;

const f = (type: FieldType, always = false): FieldRule => ({ type, always });
const within = (prefix: string, rules: FieldRules): Record<string, FieldRule> =>
  Object.fromEntries(Object.entries(rules).map(([path, rule]) => [`${prefix}.${path}`, rule]));

/** "Address group" as responses carry it (street2 may be empty; kept typed as String(0-100)). */
const ADDRESS: FieldRules = {
  city: f(str(1, 100)),
  company: f(str(1, 100)),
  country: f(upper3),
  postcodeZip: f(postcodeZip),
  stateProvince: f(str(1, 20)),
  stateProvinceCode: f(str(1, 3)),
  street: f(str(1, 100)),
  street2: f(str(0, 100)),
};

/** "Shared response groups": the line items of an order or a transaction. */
const LINE_ITEMS: FieldRules = {
  item: f(groups),
  'item[].name': f(str(1, 127), true),
  'item[].quantity': f(int(1, 9999999999999999), true),
  'item[].unitPrice': f(signedDecOut, true),
  'item[].unitTaxAmount': f(signedDecOut),
  'item[].brand': f(str(1, 127)),
  'item[].category': f(str(1, 127)),
  'item[].description': f(str(1, 127)),
  'item[].sku': f(str(1, 127)),
};

/** "Shared response groups": the taxes of an order or a transaction. */
const TAXES: FieldRules = {
  tax: f(groups),
  'tax[].amount': f(decOut),
  'tax[].type': f(str(1, 50)),
};

/** "Shared request fields": correlationId is returned as sent, on every operation. */
const SHARED_ECHO: FieldRules = {
  correlationId: f(str(1, 100)),
};

/** "Versioning": version String(1-8); merchant, the path's merchant id ("Path identifiers"). */
const MERCHANT_VERSION: FieldRules = {
  merchant: { type: stringOf('merchantId(1-40)', 1, 40, /^[0-9a-zA-Z_-]*$/), exception: 'MERCHANT_AND_VERSION' },
  version: f(str(1, 8)),
};

const ORDER_STATUS = oneOf([...ORDER_STATUS_VISIBLE, 'AUTHORIZED', 'CANCELLED'], 'order status');

/** "Refund: response fields (as visible)", the order fields. */
const ORDER_FIELDS: FieldRules = {
  'order.status': f(ORDER_STATUS),
  'order.taxAmount': f(decOut),
  'order.taxRegistrationId': f(str(1, 20)),
  'order.totalAuthorizedAmount': f(decOut, true),
  'order.totalCapturedAmount': f(decOut, true),
  'order.totalRefundedAmount': f(decOut, true),
  'order.walletIndicator': f(str(3, 3)),
  'order.walletProvider': f(str(1, 100)),
  partnerSolutionId: f(str(1, 40)),
};

/**
 * The order group's other fields, which every order operation answers with (ARCHITECTURE 4.5,
 * 4.10; the spec shows them only as request fields): typed as their request fields, amounts
 * as DecOut. They sit in "not shown" ranges of the spec's tables.
 */
const ORDER_EXTRA_FIELDS: FieldRules = {
  'order.amount': f(decOut),
  'order.currency': f(upper3),
  'order.id': f(str(1, 40)),
  'order.creationTime': f(dateTime),
  'order.lastUpdatedTime': f(dateTime),
  'order.itemAmount': f(decOut),
  'order.shippingAndHandlingAmount': f(decOut),
  'order.description': f(str(1, 127)),
  'order.reference': f(str(1, 40)),
  'order.customerNote': f(str(1, 250)),
  'order.customerOrderDate': f(date),
  'order.customerReference': f(ascii(0, 25)),
  'order.productSKU': f(str(1, 15)),
  // VERIFY's, an enumeration whose values the spec does not show (verify-request-fields-beyond-the-spec.md).
  'order.purchaseType': f(stringOf('enumeration', 1, 50, /^[A-Z][A-Z0-9_]*$/)),
  'order.requestorName': f(str(1, 100)),
  'order.acceptPartialAmount': f(bool),
  'order.notificationUrl': f(url),
  'order.custom.*': f(str(1, 250)),
  ...within('order', LINE_ITEMS),
  ...within('order', TAXES),
};

/** "Shared response groups (initiate and confirm; fragments in refund)". */
const SHARED_GROUPS: FieldRules = {
  // 3DSecure
  '3DSecure.acsEci': f(digits(1, 2)),
  '3DSecure.authenticationStatus': f(oneOf(['AUTHENTICATION_ATTEMPTED', 'AUTHENTICATION_NOT_AVAILABLE', 'AUTHENTICATION_SUCCESSFUL'])),
  '3DSecure.authenticationToken': f(base64(28, 32)),
  '3DSecure.enrollmentStatus': f(oneOf(['ENROLLED', 'ENROLLMENT_STATUS_UNDETERMINED', 'NOT_ENROLLED']), true),
  '3DSecure.xid': f(base64(28)),
  '3DSecureId': f(ascii(1, 64)),
  // authorizationResponse
  'authorizationResponse.avsCode': f(ascii(1, 100)),
  'authorizationResponse.cardLevelIndicator': f(str(1, 2)),
  'authorizationResponse.cardSecurityCodeError': f(str(1, 1)),
  'authorizationResponse.commercialCard': f(oneOf(['COMMERCIAL_CARD', 'NOT_A_COMMERCIAL_CARD', 'UNDETERMINED'])),
  'authorizationResponse.commercialCardIndicator': f(
    oneOf([
      'BUSINESS_CARD',
      'COMMERCIAL_AND_CONSUMER',
      'COMMERCIAL_CARD',
      'CONSUMER_CARD',
      'CORPORATE_CARD',
      'DECLINE_OR_NOT_COMMERCIAL_CARD',
      'OTHER',
      'PURCHASING_CARD',
    ]),
  ),
  'authorizationResponse.date': f(stringOf('String(1-4) MMDD', 1, 4, /^\d*$/)),
  'authorizationResponse.financialNetworkCode': f(str(1, 3)),
  'authorizationResponse.financialNetworkDate': f(date),
  'authorizationResponse.marketSpecificData': f(str(1, 1)),
  'authorizationResponse.merchantAdviceCode': f(str(1, 2)),
  'authorizationResponse.paySvcData': f(str(1, 23)),
  'authorizationResponse.posData': f(str(1, 13)),
  'authorizationResponse.posEntryMode': f(str(1, 4)),
  'authorizationResponse.posEntryModeChanged': f(str(1, 1)),
  'authorizationResponse.processingCode': f(str(1, 6)),
  'authorizationResponse.responseCode': f(str(1, 3)),
  'authorizationResponse.responseMessage': f(str(1, 16)),
  'authorizationResponse.returnAci': f(str(1, 1)),
  'authorizationResponse.stan': f(str(1, 6)),
  'authorizationResponse.time': f(stringOf('String(1-6) HHMMSS', 1, 6, /^\d*$/)),
  'authorizationResponse.trackQuality': f(str(1, 2)),
  'authorizationResponse.transactionIdentifier': f(str(1, 15)),
  'authorizationResponse.validationCode': f(str(1, 4)),
  'authorizationResponse.vpasResponse': f(str(1, 1)),
  // browserPayment
  'browserPayment.interaction': f(group, true),
  'browserPayment.interaction.status': f(oneOf(['COMPLETED', 'INITIATED', 'REDIRECTED_TO_PROVIDER', 'RETURNED_TO_MERCHANT']), true),
  'browserPayment.interaction.timeCompleted': f(ascii(0, 29)),
  'browserPayment.interaction.timeInitiated': f(ascii(0, 29)),
  'browserPayment.interaction.timeRedirected': f(ascii(0, 29)),
  'browserPayment.interaction.timeReturned': f(ascii(0, 29)),
  'browserPayment.provider_a.displayShippingAddress': f(bool),
  'browserPayment.provider_a.operation': f(oneOf(['AUTHORIZE', 'PAY'])),
  'browserPayment.provider_a.overrideShippingAddress': f(bool),
  'browserPayment.provider_a.paymentConfirmation': f(oneOf(['CONFIRM_AT_MERCHANT', 'CONFIRM_AT_PROVIDER'])),
  'browserPayment.redirectUrl': f(url),
  'browserPayment.returnUrl': f(url),
  // constraints.paymentPlans
  'constraints.paymentPlans.numberOfDeferrals': f(int(0, 99)),
  'constraints.paymentPlans.numberOfPayments': f(int(1, 99)),
  'constraints.paymentPlans.supported': f(arrayOf(str(1, 40))),
  // currencyConversion
  'currencyConversion.exchangeRateTime': f(dateTime),
  'currencyConversion.marginPercentage': f(decimal('0-10000000, 5 decimals', 0, 10_000_000, 5)),
  'currencyConversion.payerAmount': f(decOut),
  'currencyConversion.payerCurrency': f(upper3),
  'currencyConversion.payerExchangeRate': f(decimal('0-1e18, 12 decimals', 0, 1e18, 12)),
  'currencyConversion.payerReceiptText': f(str(1, 4096)),
  'currencyConversion.provider': f(str(1, 100)),
  'currencyConversion.providerReceipt': f(str(1, 100)),
  'currencyConversion.uptake': f(oneOf(['ACCEPTED', 'DECLINED', 'NOT_AVAILABLE', 'NOT_REQUIRED']), true),
  // paymentPlan (every field ALWAYS PROVIDED within the group, three of them only for one plan type)
  'paymentPlan.finalAmount': f(decimal('0.001-2140000000', 0.001, 2_140_000_000, 3)),
  'paymentPlan.interestRate': f(decimal('0-100', 0, 100, 3)),
  'paymentPlan.numberOfDeferrals': f(int(0, 99), true),
  'paymentPlan.numberOfPayments': f(int(1, 99), true),
  'paymentPlan.paymentAmount': f(decimal('0.001-2140000000', 0.001, 2_140_000_000, 3)),
  'paymentPlan.planId': f(str(1, 40), true),
  // response (ALWAYS PROVIDED group)
  response: f(group, true),
  'response.acquirerCode': f(ascii(1, 100)),
  'response.acquirerMessage': f(ascii(1, 255)),
  'response.cardSecurityCode.acquirerCode': f(ascii(1, 100)),
  'response.cardSecurityCode.gatewayCode': f(oneOf(['MATCH', 'NOT_PRESENT', 'NOT_PROCESSED', 'NOT_SUPPORTED', 'NO_MATCH'])),
  'response.cardholderVerification.avs.acquirerCode': f(ascii(1, 100)),
  'response.cardholderVerification.avs.gatewayCode': f(oneOf(AVS_CODES, 'AVS code')),
  'response.cardholderVerification.detailedVerification': f(groups),
  'response.cardholderVerification.detailedVerification[].gatewayCode': f(
    oneOf(['MATCHED', 'NOT_CHECKED', 'NOT_MATCHED', 'NOT_PROVIDED', 'SERVICE_NOT_AVAILABLE_RETRY', 'SERVICE_NOT_SUPPORTED']),
  ),
  'response.cardholderVerification.detailedVerification[].type': f(
    oneOf(['BILLING_PHONE', 'BILLING_POSTCODE_ZIP', 'BILLING_STREET_ADDRESS', 'CARDHOLDER_NAME', 'CUSTOMER_EMAIL']),
  ),
  'response.debugInformation': f(str(1, 2064)),
  'response.gatewayCode': f(oneOf(GATEWAY_CODES, 'gatewayCode'), true),
  'response.recurringPaymentAdvice.acquirerCode': f(digits(0, 2)),
  // result
  result: f(oneOf(RESULT, 'result'), true),
  // shipping
  ...within('shipping.address', ADDRESS),
  'shipping.address.sameAsBilling': f(oneOf(['DIFFERENT', 'SAME', 'UNKNOWN'])),
  'shipping.address.source': f(oneOf(['ADDRESS_ON_FILE', 'NEW_ADDRESS'])),
  'shipping.contact.email': f(email),
  'shipping.contact.firstName': f(str(1, 50)),
  'shipping.contact.lastName': f(str(1, 50)),
  'shipping.contact.mobilePhone': f(phone),
  'shipping.contact.phone': f(phone),
  'shipping.method': f(oneOf(['ELECTRONIC', 'GROUND', 'NOT_SHIPPED', 'OVERNIGHT', 'PICKUP', 'PRIORITY', 'SAME_DAY'])),
  'shipping.origin.postcodeZip': f(postcodeZip),
  // sourceOfFunds
  'sourceOfFunds.type': f(oneOf(['CARD', 'PROVIDER_B', 'PROVIDER_A', 'PROVIDER_C'])),
  'sourceOfFunds.token': f(alnum(1, 40)),
  'sourceOfFunds.provided.card.accountType': f(oneOf(['CHECKING', 'SAVINGS'])),
  'sourceOfFunds.provided.card.brand': f(str(1, 50), true),
  'sourceOfFunds.provided.card.expiry': f(group),
  'sourceOfFunds.provided.card.expiry.month': f(stringOf('Digits 1-12', 1, 2, /^(0?[1-9]|1[0-2])$/), true),
  'sourceOfFunds.provided.card.expiry.year': f(digits(2, 2), true),
  'sourceOfFunds.provided.card.fundingMethod': f(oneOf(['CHARGE', 'CREDIT', 'DEBIT', 'UNKNOWN']), true),
  'sourceOfFunds.provided.card.issuer': f(str(0, 255)),
  'sourceOfFunds.provided.card.localBrand': f(str(3, 50)),
  'sourceOfFunds.provided.card.nameOnCard': f(str(1, 256)),
  'sourceOfFunds.provided.card.number': f(maskedNumber, true),
  'sourceOfFunds.provided.card.scheme': f(str(1, 50), true),
  'sourceOfFunds.provided.card.securityCodePresence': f(alnum(1, 2)),
  'sourceOfFunds.provided.card.sequenceNumber': f(digits(3, 3)),
  'sourceOfFunds.provided.card.trackDataProvided': f(bool),
  'sourceOfFunds.provided.provider_b.bankIdentifier': f(digits(8, 8), true),
  'sourceOfFunds.provided.provider_a.accountEmail': f(email),
  'sourceOfFunds.provided.provider_a.accountHolder': f(str(1, 255)),
  'sourceOfFunds.provided.provider_c.bankAccountHolder': f(str(1, 255)),
  'sourceOfFunds.provided.provider_c.bankAccountNumber': f(str(1, 30)),
  'sourceOfFunds.provided.provider_c.bankIdentifier': f(str(1, 30)),
  'sourceOfFunds.provided.provider_c.bic': f(str(1, 50)),
  'sourceOfFunds.provided.provider_c.country': f(upper3),
  'sourceOfFunds.provided.provider_c.iban': f(str(1, 50)),
  // timeOfRecord
  timeOfRecord: f(dateTime),
  // transaction (ALWAYS PROVIDED group)
  transaction: f(group, true),
  'transaction.acquirer': f(group, true),
  'transaction.acquirer.batch': f(int(1, 2147483647)),
  'transaction.acquirer.customData': f(str(1, 4000)),
  'transaction.acquirer.date': f(str(1, 4000)),
  'transaction.acquirer.id': f(str(1, 40), true),
  'transaction.acquirer.merchantId': f(str(1, 127)),
  'transaction.acquirer.time': f(str(1, 4000)),
  'transaction.acquirer.transactionId': f(str(1, 100)),
  'transaction.amount': f(decOut, true),
  'transaction.authorizationCode': f(ascii(1, 100)),
  'transaction.batchName': f(str(1, 512)),
  'transaction.cashAdvance': f(bool),
  'transaction.currency': f(upper3, true),
  'transaction.frequency': f(oneOf(['INSTALLMENT', 'RECURRING', 'SINGLE'])),
  'transaction.id': f(str(1, 40), true),
  ...within('transaction', LINE_ITEMS),
  'transaction.merchantNote': f(str(1, 250)),
  'transaction.receipt': f(ascii(1, 100)),
  'transaction.reference': f(str(1, 40)),
  'transaction.requestedAmount': f(decOut),
  'transaction.source': f(oneOf(['CALL_CENTRE', 'CARD_PRESENT', 'INTERNET', 'MAIL_ORDER', 'MOTO', 'TELEPHONE_ORDER', 'VOICE_RESPONSE'])),
  'transaction.targetTransactionId': f(str(1, 40)),
  ...within('transaction', TAXES),
  'transaction.taxAmount': f(decOut),
  'transaction.terminal': f(str(1, 16)),
  'transaction.type': f(oneOf(TRANSACTION_TYPES, 'transaction.type'), true),
  // userId, version
  userId: f(str(1, 256)),
  ...MERCHANT_VERSION,
  ...SHARED_ECHO,
};

/**
 * "Shared response groups", posTerminal: "as in refund request", name ALWAYS PROVIDED. Not
 * applied to VERIFY: its posTerminal group is a different one (verify request: lane, store,
 * wider enumerations, no name) and sits in its "not shown" range (after authorizationResponse).
 */
const POS_TERMINAL: FieldRules = {
  'posTerminal.attended': f(oneOf(['ATTENDED', 'UNATTENDED', 'UNKNOWN_OR_UNSPECIFIED'])),
  'posTerminal.cardholderActivated': f(oneOf(['NOT_CARDHOLDER_ACTIVATED', 'SELF_SERVICE_TERMINAL'])),
  'posTerminal.entryMode': f(digits(3, 3)),
  'posTerminal.inputCapability': f(
    oneOf([
      'CHIP',
      'CHIP_AND_KEY_ENTRY_AND_MAGNETIC_STRIPE',
      'CHIP_AND_MAGNETIC_STRIPE',
      'CONTACTLESS_CHIP',
      'CONTACTLESS_MAGNETIC_STRIPE',
      'KEY_ENTRY',
      'KEY_ENTRY_AND_MAGNETIC_STRIPE',
      'MAGNETIC_STRIPE',
    ]),
  ),
  'posTerminal.location': f(oneOf(['OFF_CARD_ACCEPTOR_PREMISES', 'ON_CARD_ACCEPTOR_PREMISES'])),
  'posTerminal.name': f(str(1, 8), true),
};

/** Billing and customer fields of transaction and token responses, echoed as the request gave them (verify's billing with stateProvinceCode). */
const BILLING_CUSTOMER: FieldRules = {
  ...within('billing.address', ADDRESS),
  'customer.email': f(email),
  'customer.firstName': f(str(1, 50)),
  'customer.lastName': f(str(1, 50)),
  'customer.mobilePhone': f(phone),
  'customer.phone': f(phone),
  'customer.taxRegistrationId': f(str(1, 30)),
  'device.ipAddress': f(str(7, 15)),
};

/** "Verify: response fields (as visible)". */
const VERIFY_VISIBLE: FieldRules = {
  'agreement.maximumAmountPerPayment': f(decimal('DecOut(0-99999999999999)', 0, 99_999_999_999_999, 3)),
  'agreement.minimumAmountPerPayment': f(decimal('DecOut(0-99999999999999)', 0, 99_999_999_999_999, 3)),
  'agreement.minimumDaysBetweenPayments': f(int(1, 9999)),
  'agreement.numberOfPayments': f(int(1, 999)),
  'agreement.paymentFrequency': f(
    oneOf(['AD_HOC', 'DAILY', 'FORTNIGHTLY', 'MONTHLY', 'OTHER', 'QUARTERLY', 'TWICE_YEARLY', 'WEEKLY', 'YEARLY']),
  ),
  'agreement.retailer.abbreviatedTradingName': f(str(1, 10)),
  'agreement.retailer.merchantCategoryCode': f(str(1, 4)),
  'agreement.retailer.tradingName': f(str(1, 100)),
  'agreement.startDate': f(date),
  'agreement.type': f(oneOf(['INSTALLMENT', 'OTHER', 'RECURRING', 'UNSCHEDULED'])),
  'appPayment.redirectUrl': f(str(3, 2048)),
  'appPayment.returnUrl': f(str(3, 2048)),
  'authentication.3ds.acsEci': f(alnum(1, 2)),
  'authentication.3ds.authenticationToken': f(base64(28, 32)),
  'authentication.3ds.transactionId': f(str(1, 50)),
  'authentication.3ds2.3dsServerTransactionId': f(str(1, 50)),
  'authentication.3ds2.acsTransactionId': f(str(36, 36)),
  'authentication.3ds2.authenticationScheme': f(str(2, 50)),
  'authentication.3ds2.custom': f(str(1, 4000)),
  'authentication.3ds2.directoryServerId': f(str(10, 10)),
  'authentication.3ds2.dsReference': f(str(0, 32)),
  'authentication.3ds2.dsTransactionId': f(str(1, 50)),
  'authentication.3ds2.methodCompleted': f(bool, true),
  'authentication.3ds2.methodSupported': f(oneOf(['NOT_SUPPORTED', 'SUPPORTED']), true),
  'authentication.3ds2.protocolVersion': f(stringOf('protocolVersion(1-20)', 1, 20, /^[0-9a-zA-Z.]*$/)),
  'authentication.3ds2.requestorId': f(str(1, 35), true),
  'authentication.3ds2.requestorName': f(str(1, 40), true),
  'authentication.3ds2.sdk.challengeCompletionCallbackUrl': f(str(1, 2048)),
  'authentication.3ds2.sdk.interface': f(oneOf(['HTML', 'NATIVE'])),
  'authentication.3ds2.sdk.oobAppSupportsRedirectUrl': f(bool),
  'authentication.3ds2.sdk.timeout': f(int(300, 900)),
  'authentication.3ds2.sdk.uiType': f(stringOf('uiType list', 1, 200, /^(TEXT|SINGLE_SELECT|MULTI_SELECT|OUT_OF_BAND|OTHER_HTML)(,(TEXT|SINGLE_SELECT|MULTI_SELECT|OUT_OF_BAND|OTHER_HTML))*$/)),
  'authentication.3ds2.statusReasonCode': f(str(2, 2)),
  'authentication.3ds2.transactionStatus': f(stringOf('single letter', 1, 1, /^[a-zA-Z]$/)),
  'authentication.acceptVersions': f(stringOf('3DS1, 3DS2, PASSKEY list', 1, 50, /^(3DS1|3DS2|PASSKEY)(,(3DS1|3DS2|PASSKEY))*$/)),
  'authentication.amount': f(decOut),
  'authentication.channel': f(oneOf(['MERCHANT_REQUESTED', 'PAYER_APP', 'PAYER_BROWSER'])),
  'authentication.method': f(oneOf(['OUT_OF_BAND', 'STATIC'])),
  'authentication.payerInteraction': f(oneOf(['NOT_POSSIBLE', 'NOT_REQUIRED', 'REQUIRED'])),
  'authentication.psd2.exemption': f(
    oneOf([
      'AUTHENTICATION_OUTAGE',
      'AUTO',
      'LOW_RISK',
      'LOW_VALUE_PAYMENT',
      'MERCHANT_INITIATED_TRANSACTION',
      'NONE',
      'RECURRING_PAYMENT',
      'SCA_DELEGATION',
      'SECURE_CORPORATE_PAYMENT',
      'TRUSTED_MERCHANT',
    ]),
  ),
  'authentication.psd2.trustedMerchantStatus': f(oneOf(['NOT_ON_LIST', 'ON_LIST'])),
  'authentication.purpose': f(oneOf(['ADD_CARD', 'AGREEMENT_CANCELLATION', 'MAINTAIN_CARD', 'PAYMENT_TRANSACTION', 'REFRESH_AUTHENTICATION'])),
  'authentication.redirect.domainName': f(str(1, 253)),
  'authentication.status.code': f(str(1, 100)),
  'authentication.status.description': f(str(1, 1024)),
  'authentication.time': f(dateTime),
  'authentication.transactionId': f(str(1, 40)),
  'authentication.version': f(oneOf(['3DS2', 'PASSKEY', 'NONE'])),
};

/** "Create or update token: response fields", plus ARCHITECTURE 5's token fields (in the table's "not shown" range). */
const TOKEN_RULES: FieldRules = {
  ...BILLING_CUSTOMER,
  'externalTokenProvider.customData': f(str(1, 4000)),
  'externalTokenProvider.responseCode': f(str(1, 100)),
  'externalTokenProvider.responseMessage': f(str(1, 255)),
  repositoryId: f(ascii(1, 16)),
  'response.gatewayCode': f(oneOf(TOKEN_GATEWAY_CODES, 'token gatewayCode')),
  result: f(oneOf(RESULT, 'result'), true),
  ...MERCHANT_VERSION,
  ...SHARED_ECHO,
  // ARCHITECTURE 5, Tokens (TOKEN_FIELDS)
  token: f(alnum(1, 40)),
  status: f(oneOf(['VALID', 'INVALID'])),
  verificationStrategy: f(oneOf(['ACQUIRER', 'BASIC', 'NONE'])),
  'sourceOfFunds.type': f(oneOf(['CARD', 'PROVIDER_A'])),
  'sourceOfFunds.provided.card.number': f(maskedNumber),
  'sourceOfFunds.provided.card.expiry': f(stringOf('MMYY', 4, 4, /^(0[1-9]|1[0-2])\d\d$/)),
  'sourceOfFunds.provided.card.nameOnCard': f(str(1, 256)),
  'sourceOfFunds.provided.provider_a.accountEmail': f(email),
  'sourceOfFunds.provided.provider_a.accountHolder': f(str(1, 255)),
  'sourceOfFunds.provided.provider_a.payerId': f(str(1, 13)),
  'sourceOfFunds.provided.provider_a.billingAgreement.id': f(str(1, 100)),
  'sourceOfFunds.provided.provider_a.billingAgreement.cardinality': f(oneOf(['MULTIPLE', 'SINGLE'])),
  'sourceOfFunds.provided.provider_a.billingAgreement.name': f(str(1, 255)),
  'sourceOfFunds.provided.provider_a.billingAgreement.description': f(str(1, 255)),
};

/** Session view (docs/api-extensions.md, sessions.md): session.id ASCII(31-35), session.version ASCII(10) ("Shared request fields"). */
const SESSION_RULES: FieldRules = {
  'session.id': f(ascii(31, 35), true),
  'session.version': f(ascii(10, 10), true),
  'session.updateStatus': f(oneOf(['NO_UPDATE', 'SUCCESS', 'FAILURE'])),
  session: f(group, true),
  result: f(oneOf(RESULT, 'result'), true),
  'sourceOfFunds.provided.card.number': f(maskedNumber),
  ...MERCHANT_VERSION,
  ...SHARED_ECHO,
};

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------

export interface OperationRules {
  readonly name: string;
  /** The spec's section (or the decision) the rules come from. */
  readonly source: string;
  readonly fields: FieldRules;
  /**
   * Ranges of field paths the spec's table leaves "not shown": [after, before), `undefined`
   * for an open end. Unknown fields inside are accepted.
   */
  readonly notShown: readonly (readonly [string | undefined, string | undefined])[];
  /** Unknown fields accepted everywhere, under this named exception. */
  readonly openBy?: ExceptionName;
  /** Extra required top-level paths, under a named exception. */
  readonly requiredBy?: { readonly exception: ExceptionName; readonly paths: readonly string[] };
  /** response.gatewayCode values beyond the enumeration, under named exceptions. */
  readonly extraGatewayCodes?: Readonly<Record<string, ExceptionName>>;
}

const ORDER_OPERATION_REQUIRED = {
  exception: 'ORDER_OPERATION_FIELDS' as const,
  paths: ['merchant', 'order', 'order.totalAuthorizedAmount', 'order.totalCapturedAmount', 'order.totalRefundedAmount', 'response', 'result', 'timeOfRecord', 'transaction', 'version'],
};

const TRANSACTION_FIELDS: FieldRules = { ...SHARED_GROUPS, ...ORDER_FIELDS, ...ORDER_EXTRA_FIELDS, ...BILLING_CUSTOMER, ...POS_TERMINAL };
/** VERIFY's: the shared groups without the refund-shaped posTerminal, plus its visible fields. */
const VERIFY_FIELDS: FieldRules = { ...SHARED_GROUPS, ...ORDER_FIELDS, ...ORDER_EXTRA_FIELDS, ...BILLING_CUSTOMER, ...VERIFY_VISIBLE };

export const OPERATIONS = {
  TOKEN: {
    name: 'Create or update token (version 57)',
    source: 'spec: Create or update token: response fields',
    fields: TOKEN_RULES,
    // "Fields of the scheme token group and any response fields after it: not shown."
    notShown: [['schemeToken', undefined]],
  },
  TOKEN_EXTENSION: {
    name: 'Token POST / GET / DELETE',
    source: 'docs/api-extensions.md, Tokens; ARCHITECTURE 5 (token responses as for create or update)',
    fields: TOKEN_RULES,
    notShown: [['schemeToken', undefined]],
  },
  REFUND: {
    name: 'Refund (version 29)',
    source: 'spec: Refund: response fields (as visible)',
    fields: TRANSACTION_FIELDS,
    // "Response fields between 3DSecure.authenticationToken and the order status field, and after sourceOfFunds.type: not shown."
    notShown: [
      ['3DSecure.authenticationToken', 'order.status'],
      ['sourceOfFunds.type', undefined],
    ],
    requiredBy: ORDER_OPERATION_REQUIRED,
  },
  INITIATE_BROWSER_PAYMENT: {
    name: 'Initiate browser payment (version 32)',
    source: 'spec: Shared response groups; Initiate response not-shown ranges',
    fields: TRANSACTION_FIELDS,
    // "fields between the browserPayment group and paymentPlan.planId, and fields after transaction.item[n].brand: not shown."
    notShown: [
      ['browserPayment.~', 'paymentPlan.planId'],
      ['transaction.item[].brand', undefined],
    ],
    requiredBy: ORDER_OPERATION_REQUIRED,
    extraGatewayCodes: { SUBMITTED: 'SUBMITTED' },
  },
  CONFIRM_BROWSER_PAYMENT: {
    name: 'Confirm browser payment (version 30)',
    source: 'spec: Shared response groups; Confirm response not-shown range',
    fields: TRANSACTION_FIELDS,
    // "fields between currencyConversion.uptake and shipping.address: not shown."
    notShown: [['currencyConversion.uptake', 'shipping.address']],
    requiredBy: ORDER_OPERATION_REQUIRED,
    extraGatewayCodes: { SUBMITTED: 'SUBMITTED' },
  },
  VERIFY: {
    name: 'Verify (version 100)',
    source: 'spec: Verify: response fields (as visible); shared groups (SHARED_GROUPS_FOR_VERIFY)',
    fields: VERIFY_FIELDS,
    // "response fields before agreement.minimumAmountPerPayment and from authorizationResponse onward: not shown."
    notShown: [
      [undefined, 'agreement.minimumAmountPerPayment'],
      ['authorizationResponse', undefined],
    ],
    requiredBy: ORDER_OPERATION_REQUIRED,
  },
  CARD_PAYMENT: {
    name: 'AUTHORIZE / PAY / CAPTURE / VOID',
    source: 'docs/api-extensions.md, Card payments (Responses)',
    fields: { ...TRANSACTION_FIELDS, ...VERIFY_VISIBLE },
    notShown: [],
    openBy: 'EXTENSION_OPERATIONS',
    requiredBy: ORDER_OPERATION_REQUIRED,
  },
  TRANSACTION_RETRIEVAL: {
    name: 'Retrieve transaction',
    source: 'docs/decisions/order-retrieval.md (the stored response of the transaction)',
    fields: { ...TRANSACTION_FIELDS, ...VERIFY_VISIBLE },
    notShown: [],
    openBy: 'EXTENSION_OPERATIONS',
    requiredBy: ORDER_OPERATION_REQUIRED,
    extraGatewayCodes: { SUBMITTED: 'SUBMITTED' },
  },
  SESSION: {
    name: 'Session create / update / retrieve',
    source: 'docs/api-extensions.md, Payment sessions; docs/sessions.md',
    fields: SESSION_RULES,
    notShown: [],
    openBy: 'EXTENSION_OPERATIONS',
  },
} satisfies Record<string, OperationRules>;

export type OperationName = keyof typeof OPERATIONS | 'ORDER_RETRIEVAL';

// ---------------------------------------------------------------------------------------------
// The checker
// ---------------------------------------------------------------------------------------------

export interface ConformanceRequest {
  method: string;
  /** The path as called, query included. */
  path: string;
  /** The request body as sent (parsed JSON), if any. */
  body?: unknown;
}

export interface ConformanceAnswer {
  status: number;
  /** The parsed JSON body; undefined when the body was empty or not JSON. */
  body: unknown;
  text: string;
  headers?: { get(name: string): string | null };
}

export interface Violation {
  path: string;
  rule: string;
  detail: string;
}

export interface ConformanceOptions {
  /** The run's own base URL (http in e2e, TEST_BASE_URL_HTTP). */
  ownBaseUrl?: string;
}

const API_PATH = /^\/api\/rest\/version\/([^/]+)\/merchant\/([^/?]+)(\/[^?]*)?(\?.*)?$/;

/** Whether the path is the merchant REST API, its fallback (unknown paths) included: not payer pages, health or metrics. */
export function isMerchantApiPath(urlPath: string): boolean {
  return !/^\/(bpui|health|metrics)(\/|\?|$)/.test(urlPath);
}

/** The rules that apply to a successful answer to this request, or undefined when the request names no operation. */
export function operationOf(request: ConformanceRequest): OperationName | undefined {
  const match = API_PATH.exec(request.path);
  if (!match) return undefined;
  const rest = (match[3] ?? '').replace(/\/+$/, '');
  const method = request.method.toUpperCase();
  const segments = rest.split('/').filter(Boolean);
  if (segments[0] === 'token') {
    if (segments.length === 2 && method === 'PUT') return 'TOKEN';
    return 'TOKEN_EXTENSION';
  }
  if (segments[0] === 'session') return 'SESSION';
  if (segments[0] === 'order') {
    if (segments.length === 2 && method === 'GET') return 'ORDER_RETRIEVAL';
    if (segments.length === 4 && method === 'GET') return 'TRANSACTION_RETRIEVAL';
    if (segments.length === 4 && method === 'PUT') {
      const apiOperation = isObject(request.body) ? request.body.apiOperation : undefined;
      switch (apiOperation) {
        case 'REFUND':
          return 'REFUND';
        case 'VERIFY':
          return 'VERIFY';
        case 'INITIATE_BROWSER_PAYMENT':
          return 'INITIATE_BROWSER_PAYMENT';
        case 'CONFIRM_BROWSER_PAYMENT':
          return 'CONFIRM_BROWSER_PAYMENT';
        case 'AUTHORIZE':
        case 'PAY':
        case 'CAPTURE':
        case 'VOID':
          return 'CARD_PAYMENT';
        default:
          return undefined;
      }
    }
  }
  return undefined;
}

/** Every violation of the rules in one merchant API answer. */
export function checkResponse(request: ConformanceRequest, answer: ConformanceAnswer, options: ConformanceOptions = {}): Violation[] {
  const violations: Violation[] = [];
  const add = (path: string, rule: string, detail: string) => violations.push({ path, rule, detail });
  const method = request.method.toUpperCase();
  if (method === 'HEAD' || answer.status === 204 || answer.status === 304) {
    return violations;
  }
  const body = answer.body;
  if (!isObject(body)) {
    add('(body)', 'spec Conventions: bodies are JSON', `status ${answer.status}, the body is not a JSON object`);
    return violations;
  }
  checkSortedKeys(body, '', add);

  if (body.result === 'ERROR' || 'error' in body || answer.status >= 400) {
    checkError(body, answer, add);
    return violations;
  }

  const match = API_PATH.exec(request.path);
  const operation = operationOf(request);
  if (!match || !operation) {
    add('(body)', 'merchant API', `a non-error answer (status ${answer.status}) to a request that names no operation`);
    return violations;
  }
  const expectedStatus = method === 'GET' || method === 'DELETE' || (operation === 'SESSION' && method === 'PUT') ? 200 : 201;
  if (answer.status !== expectedStatus) {
    add('(status)', EXCEPTIONS.STATUS_CODES, `expected ${expectedStatus} for ${method} ${operation}, got ${answer.status}`);
  }
  if (body.version !== undefined && body.version !== match[1]) {
    add('version', 'spec Versioning / ARCHITECTURE 4.6: version echoes the path', `got ${shown(body.version)}, path version ${shown(match[1])}`);
  }
  if (body.merchant !== undefined && body.merchant !== decodeURIComponent(match[2])) {
    add('merchant', 'the path merchant id', `got ${shown(body.merchant)}`);
  }
  const unmask = asksUnmask(request);

  if (operation === 'ORDER_RETRIEVAL') {
    checkOrderRetrieval(body, unmask, options, add);
    return violations;
  }
  if (method === 'DELETE' && operation === 'TOKEN_EXTENSION') {
    // docs/api-extensions.md: 200 {"result":"SUCCESS"} (plus merchant and version).
    checkFields(body, OPERATIONS.TOKEN_EXTENSION, '', unmask, options, add);
    return violations;
  }
  checkFields(body, operation === 'TRANSACTION_RETRIEVAL' ? retrievalRules(body) : OPERATIONS[operation], '', unmask, options, add, request.body);
  checkOrderGroup(body, '', add);
  return violations;
}

/**
 * Groups a transaction response carries at its top level, and an order's retrieval beside its
 * own fields: never inside `order`, whose fields are the order's own (the ledger's and the
 * merchant's order.* fields). The "not shown" ranges would otherwise let them through (REFUND's
 * range before order.status holds order.billing), as a LOCK_FAILURE answer once carried them
 * (docs/decisions/lock-failure-response.md).
 */
const BESIDE_THE_ORDER = ['agreement', 'billing', 'currencyConversion', 'customer', 'device', 'shipping', 'sourceOfFunds'] as const;

function checkOrderGroup(body: Record<string, unknown>, prefix: string, add: AddViolation): void {
  if (!isObject(body.order)) return;
  for (const key of BESIDE_THE_ORDER) {
    if (key in body.order) {
      add(`${prefix}order.${key}`, 'spec: the order group holds the order\'s fields (ARCHITECTURE 4.5)', `${key} is a group of the response's top level, not of order`);
    }
  }
}

/** The order's totals, which a LOCK_FAILURE on an unread order leaves out (LOCK_FAILURE_UNREAD_ORDER_TOTALS). */
const ORDER_TOTALS = new Set(['order.totalAuthorizedAmount', 'order.totalCapturedAmount', 'order.totalRefundedAmount']);

/**
 * An operation whose acquirer is its target's (LOCK_FAILURE_UNSEEN_TARGET_ACQUIRER): a CAPTURE,
 * VOID or CONFIRM_BROWSER_PAYMENT, or a REFUND that names a target or gives no sourceOfFunds
 * (a standalone refund gives one and goes to the merchant's card acquirer).
 */
function actsOnATarget(requested: unknown): boolean {
  if (!isObject(requested)) return false;
  switch (requested.apiOperation) {
    case 'CAPTURE':
    case 'VOID':
    case 'CONFIRM_BROWSER_PAYMENT':
      return true;
    case 'REFUND':
      return !isObject(requested.sourceOfFunds) || (isObject(requested.transaction) && requested.transaction.targetTransactionId !== undefined);
    default:
      return false;
  }
}

/** A retrieved transaction reads as its operation's answer: a VERIFICATION with VERIFY's groups (no refund-shaped posTerminal). */
function retrievalRules(body: Record<string, unknown>, base: OperationRules = OPERATIONS.TRANSACTION_RETRIEVAL): OperationRules {
  const type = isObject(body.transaction) ? body.transaction.type : undefined;
  return type === 'VERIFICATION' ? { ...base, fields: VERIFY_FIELDS } : base;
}

/** GET .../order/{id}: the order's fields at the top level, transaction[] as each transaction's retrieval (docs/decisions/order-retrieval.md). */
function checkOrderRetrieval(body: Record<string, unknown>, unmask: boolean, options: ConformanceOptions, add: AddViolation): void {
  const { transaction, merchant: _m, version: _v, result, ...orderFields } = body;
  const rule = 'docs/decisions/order-retrieval.md';
  if (result !== 'SUCCESS') add('result', rule, `expected SUCCESS, got ${shown(result)}`);
  checkFields(
    { order: orderFields },
    {
      name: 'Retrieve order',
      source: rule,
      fields: { ...ORDER_FIELDS, ...ORDER_EXTRA_FIELDS },
      notShown: [],
      openBy: 'EXTENSION_OPERATIONS',
      requiredBy: { exception: 'ORDER_OPERATION_FIELDS', paths: ['order.totalAuthorizedAmount', 'order.totalCapturedAmount', 'order.totalRefundedAmount'] },
    },
    '',
    unmask,
    options,
    (path, r, detail) => add(path.replace(/^order\./, ''), r, detail),
  );
  if (!Array.isArray(transaction)) {
    add('transaction', rule, `expected an array of transactions, got ${typeName(transaction)}`);
    return;
  }
  const retrieval: OperationRules = { ...OPERATIONS.TRANSACTION_RETRIEVAL, requiredBy: { exception: 'ORDER_OPERATION_FIELDS', paths: ORDER_OPERATION_REQUIRED.paths.filter((p) => p !== 'merchant' && p !== 'version') } };
  transaction.forEach((element, i) => {
    if (!isObject(element)) {
      add(`transaction[${i}]`, rule, `expected a transaction, got ${typeName(element)}`);
      return;
    }
    checkFields(element, retrievalRules(element, retrieval), `transaction[${i}].`, unmask, options, add);
    checkOrderGroup(element, `transaction[${i}].`, add);
  });
}

type AddViolation = (path: string, rule: string, detail: string) => void;

function checkFields(
  body: Record<string, unknown>,
  operation: OperationRules,
  prefix: string,
  unmask: boolean,
  options: ConformanceOptions,
  add: AddViolation,
  /** The request body the answer is to (order operations), for what depends on the operation asked. */
  requested?: unknown,
): void {
  const source = operation.source;
  const present = new Map<string, unknown>();
  flatten(body, '', present);

  // Required fields: ALWAYS PROVIDED whenever the parent group is present.
  // LOCK_FAILURE on an order the edge could not read: its order group has no status (lock-failure-response.ts).
  const lockFailureUnread = isObject(body.response) && body.response.gatewayCode === 'LOCK_FAILURE' && !(isObject(body.order) && 'status' in body.order);
  const unseenTarget = lockFailureUnread && actsOnATarget(requested);
  for (const [rulePath, rule] of Object.entries(operation.fields)) {
    if (!rule.always) continue;
    if (rulePath === 'transaction.acquirer' && unseenTarget) continue; // LOCK_FAILURE_UNSEEN_TARGET_ACQUIRER
    if (lockFailureUnread && ORDER_TOTALS.has(rulePath)) continue; // LOCK_FAILURE_UNREAD_ORDER_TOTALS
    for (const parent of parentsOf(rulePath, body)) {
      const concrete = parent.path ? `${parent.path}.${lastSegment(rulePath)}` : rulePath;
      if (!(lastSegment(rulePath) in parent.value)) {
        add(prefix + concrete, `${source}: ALWAYS PROVIDED`, 'missing');
      }
    }
  }
  for (const path of operation.requiredBy?.paths ?? []) {
    if (lockFailureUnread && ORDER_TOTALS.has(path)) continue; // LOCK_FAILURE_UNREAD_ORDER_TOTALS
    if (!present.has(path) && ![...present.keys()].some((p) => p.startsWith(`${path}.`) || p.startsWith(`${path}[`))) {
      add(prefix + path, EXCEPTIONS[operation.requiredBy!.exception], 'missing');
    }
  }

  // Present fields: typed; unknown ones only where the spec does not show its fields.
  for (const [path, value] of present) {
    const general = generalise(path);
    const rule = ruleFor(operation.fields, general);
    if (rule) {
      if (rule.type === group || rule.type === groups) {
        const problem = rule.type.check(value);
        if (problem) add(prefix + path, `${source}: ${rule.type.name}`, problem);
        continue;
      }
      let problem = rule.type.check(value);
      if (problem && rule.type === url && isString(value) && options.ownBaseUrl && value.startsWith(`${options.ownBaseUrl}/`)) {
        problem = undefined; // TEST_BASE_URL_HTTP
      }
      if (problem && general === 'response.gatewayCode' && isString(value) && operation.extraGatewayCodes?.[value]) {
        problem = undefined; // a named exception (SUBMITTED)
      }
      if (problem) {
        add(prefix + path, `${source}: ${rule.type.name}`, `${problem} (value ${shown(value)})`);
      }
      if (general.endsWith('.card.number') && isString(value)) {
        checkMasking(prefix + path, value, unmask, add);
      }
      continue;
    }
    if (isObject(value) || Array.isArray(value)) {
      continue; // a group: its members are checked one by one
    }
    if (operation.openBy || inNotShown(general, operation.notShown)) {
      continue;
    }
    add(prefix + path, `${source}: field not in the operation's response fields (outside its "not shown" ranges)`, `unexpected field (value ${shown(value)})`);
  }
}

/** The group objects a rule path's parent names in the body (every array element for `[]`). */
function parentsOf(rulePath: string, body: Record<string, unknown>): { path: string; value: Record<string, unknown> }[] {
  const segments = rulePath.split('.');
  segments.pop();
  let current: { path: string; value: unknown }[] = [{ path: '', value: body }];
  for (const segment of segments) {
    const next: { path: string; value: unknown }[] = [];
    const isArray = segment.endsWith('[]');
    const key = isArray ? segment.slice(0, -2) : segment;
    for (const node of current) {
      if (!isObject(node.value) || !(key in node.value)) continue;
      const child = node.value[key];
      const childPath = node.path ? `${node.path}.${key}` : key;
      if (isArray) {
        if (Array.isArray(child)) child.forEach((element, i) => next.push({ path: `${childPath}[${i}]`, value: element }));
      } else {
        next.push({ path: childPath, value: child });
      }
    }
    current = next;
  }
  return current.filter((node): node is { path: string; value: Record<string, unknown> } => isObject(node.value));
}

function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf('.') + 1);
}

function flatten(value: unknown, path: string, out: Map<string, unknown>): void {
  if (path) out.set(path, value);
  if (isObject(value)) {
    for (const [key, child] of Object.entries(value)) flatten(child, path ? `${path}.${key}` : key, out);
  } else if (Array.isArray(value) && value.every((element) => isObject(element))) {
    value.forEach((element, i) => flatten(element, `${path}[${i}]`, out));
  }
}

/** `a.b[3].c` -> `a.b[].c` */
function generalise(path: string): string {
  return path.replace(/\[\d+\]/g, '[]');
}

function ruleFor(fields: FieldRules, path: string): FieldRule | undefined {
  if (fields[path]) return fields[path];
  for (const [rulePath, rule] of Object.entries(fields)) {
    if (!rulePath.includes('*')) continue;
    const pattern = new RegExp(`^${rulePath.replace(/[.[\]]/g, (c) => `\\${c}`).replace(/\*/g, '[^.]+')}$`);
    if (pattern.test(path)) return rule;
  }
  return undefined;
}

/**
 * Spec tables are alphabetical; a "not shown" range [after, before) is compared segment by
 * segment, case-insensitively. `x.~` stands for "after every field of group x".
 */
export function inNotShown(path: string, ranges: OperationRules['notShown']): boolean {
  return ranges.some(([after, before]) => (after === undefined || comparePaths(path, after) > 0) && (before === undefined || comparePaths(path, before) < 0));
}

function comparePaths(a: string, b: string): number {
  const left = a.toLowerCase().split('.');
  const right = b.toLowerCase().split('.');
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    if (right[i] === '~') return -1;
    if (left[i] !== right[i]) return left[i] < right[i] ? -1 : 1;
  }
  return left.length - right.length;
}

function checkMasking(path: string, value: string, unmask: boolean, add: AddViolation): void {
  if (/x/.test(value)) {
    if (!/^\d{6}x+\d{4}$/.test(value)) add(path, 'spec sourceOfFunds.provided.card.number: masked in 6.4 format', `a masked number of ${value.length} characters not in 6.4 form`);
  } else if (!unmask) {
    add(path, 'spec sourceOfFunds.provided.card.number: masked by default (UNMASK not requested)', `an unmasked number of ${value.length} digits`);
  }
}

function asksUnmask(request: ConformanceRequest): boolean {
  const body = request.body;
  const controls = isObject(body) && isObject(body.responseControls) ? body.responseControls.sensitiveData : undefined;
  return controls === 'UNMASK' || /[?&]responseControls\.sensitiveData=UNMASK/.test(request.path);
}

/** "Errors" and ARCHITECTURE 4.1/4.2: exactly {error, result: ERROR}; each conditional field only with its causes. */
function checkError(body: Record<string, unknown>, answer: ConformanceAnswer, add: AddViolation): void {
  const rule = 'spec Errors';
  for (const key of Object.keys(body)) {
    if (key !== 'error' && key !== 'result') add(key, `${rule} / ARCHITECTURE 4.2: the error body is exactly {error, result}`, 'unexpected field');
  }
  if (body.result !== 'ERROR') add('result', `${rule}: result ERROR`, `got ${shown(body.result)}`);
  if (answer.status < 400) add('(status)', EXCEPTIONS.STATUS_CODES, `an error answered with status ${answer.status}`);
  const error = body.error;
  if (!isObject(error)) {
    add('error', `${rule}: error group`, `missing or not an object (${typeName(error)})`);
    return;
  }
  const allowed = ['cause', 'explanation', 'field', 'supportCode', 'validationType'];
  for (const key of Object.keys(error)) {
    if (!allowed.includes(key)) add(`error.${key}`, `${rule}: error fields are cause, explanation, field, validationType, supportCode`, 'unexpected field');
  }
  const cause = error.cause;
  if (!isString(cause) || !(ERROR_CAUSES as readonly string[]).includes(cause)) {
    add('error.cause', `${rule}: error.cause enum (always)`, `got ${shown(cause)}`);
    return;
  }
  const check = (key: string, type: FieldType, allowedCauses: readonly string[]) => {
    if (!(key in error)) return;
    if (!allowedCauses.includes(cause)) add(`error.${key}`, `${rule}: error.${key} only when cause is ${allowedCauses.join(' or ')}`, `present with cause ${cause}`);
    const problem = type.check(error[key]);
    if (problem) add(`error.${key}`, `${rule}: ${type.name}`, `${problem} (value ${shown(error[key])})`);
  };
  check('explanation', str(1, 1000), ['INVALID_REQUEST', 'SERVER_BUSY']);
  check('field', str(1, 100), ['INVALID_REQUEST']);
  check('validationType', oneOf(VALIDATION_TYPES, 'validationType'), ['INVALID_REQUEST']);
  check('supportCode', str(1, 100), ['SERVER_FAILED', 'REQUEST_REJECTED']);
  if (('field' in error) !== ('validationType' in error)) {
    add('error.field', `${rule}: error.field and error.validationType come together (a field-level validation error)`, `field ${'field' in error ? 'present' : 'absent'}, validationType ${'validationType' in error ? 'present' : 'absent'}`);
  }
  // ARCHITECTURE 4.1: status per cause; supportCode on 403 and 500.
  const expected: Record<string, (status: number) => boolean> = {
    INVALID_REQUEST: (s) => s >= 400 && s < 500 && s !== 403,
    REQUEST_REJECTED: (s) => s === 403,
    SERVER_BUSY: (s) => s === 503,
    SERVER_FAILED: (s) => s === 500,
  };
  if (!expected[cause](answer.status)) add('(status)', EXCEPTIONS.STATUS_CODES, `cause ${cause} answered with status ${answer.status}`);
  if ((cause === 'SERVER_FAILED' || cause === 'REQUEST_REJECTED') && !('supportCode' in error)) {
    add('error.supportCode', `${EXCEPTIONS.STATUS_CODES} (supportCode with ${cause})`, 'missing');
  }
  if (answer.headers) {
    if (answer.status === 401 && !/^Basic realm=/.test(answer.headers.get('www-authenticate') ?? '')) {
      add('(header) WWW-Authenticate', EXCEPTIONS.STATUS_CODES, 'a 401 without a Basic challenge');
    }
    if (answer.status === 503 && !answer.headers.get('retry-after')) {
      add('(header) Retry-After', EXCEPTIONS.STATUS_CODES, 'a 503 without Retry-After');
    }
  }
}

function checkSortedKeys(value: unknown, path: string, add: AddViolation): void {
  if (Array.isArray(value)) {
    value.forEach((element, i) => checkSortedKeys(element, `${path}[${i}]`, add));
    return;
  }
  if (!isObject(value)) return;
  // JSON.parse puts integer-like keys first; only the others' order is the sender's.
  const keys = Object.keys(value).filter((key) => !/^\d+$/.test(key));
  const sorted = [...keys].sort();
  if (keys.join('\u0000') !== sorted.join('\u0000')) {
    add(path || '(top level)', EXCEPTIONS.SORTED_KEYS, `keys in the order ${shown(keys.join(','))}`);
  }
  for (const [key, child] of Object.entries(value)) checkSortedKeys(child, path ? `${path}.${key}` : key, add);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A value for a message: never a card number (any run of 9 or more digits is hidden), never long. */
export function shown(value: unknown): string {
  let text: string;
  try {
    text = value === undefined ? 'undefined' : JSON.stringify(value);
  } catch {
    text = String(value);
  }
  text = text.replace(/\d{9,}/g, (run) => `<${run.length} digits>`);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** One message for a test failure: the call, then one line per violation. */
export function describeViolations(request: ConformanceRequest, status: number, violations: readonly Violation[]): string {
  const where = `${request.method.toUpperCase()} ${request.path.replace(/\d{9,}/g, (run) => `<${run.length} digits>`)} -> ${status}`;
  return [
    `Response conformance: ${violations.length} violation(s) in the answer to ${where}`,
    ...violations.map((v) => `  - ${v.path}: ${v.detail} [rule: ${v.rule}]`),
  ].join('\n');
}
