import { GatewayError, JsonObject, JsonValue, VERIFICATION_STRATEGIES, VerificationStrategy } from '@gateway/contracts';

/**
 * The request fields of "Create or update token" that the vault reads, as plain typed data.
 *
 * Interim: the edge does not validate token bodies yet (request validation, issue 3, is being
 * built in parallel with a `SaveTokenRequest` class); until the vault switches to that class,
 * `readSaveTokenFields` checks the type and format of every field read here, so a malformed
 * body gets the spec's field error rather than a server fault. It does not reject unknown
 * fields: that is the edge validator's job.
 */
export const SOURCE_OF_FUNDS_TYPES = ['CARD', 'PROVIDER_A'] as const;
export type SourceOfFundsType = (typeof SOURCE_OF_FUNDS_TYPES)[number];
export const BILLING_AGREEMENT_CARDINALITIES = ['MULTIPLE', 'SINGLE'] as const;
export type BillingAgreementCardinality = (typeof BILLING_AGREEMENT_CARDINALITIES)[number];

export interface P2peFields {
  cardBin?: string;
  encryptionState?: string;
  initializationVector?: string;
  keySerialNumber: string;
  payload: string;
}

export interface CardFields {
  number?: string;
  expiry?: { month: string; year: string };
  nameOnCard?: string;
  securityCode?: string;
  p2pe?: P2peFields;
}

export interface BillingAgreementFields {
  id: string;
  cardinality: BillingAgreementCardinality;
  name?: string;
  description?: string;
}

export interface ProviderAFields {
  accountEmail?: string;
  accountHolder?: string;
  payerId?: string;
  billingAgreement?: BillingAgreementFields;
}

export interface ShippingFields {
  address?: Record<string, string>;
  contact?: { firstName?: string; lastName?: string };
  origin?: { postcodeZip?: string };
}

export interface SaveTokenFields {
  sourceOfFunds: {
    type?: SourceOfFundsType;
    token?: string;
    schemeTokenProvisioningIdentifier?: string;
    provided?: { card?: CardFields; provider_a?: ProviderAFields };
  };
  shipping?: ShippingFields;
  verificationStrategy?: VerificationStrategy;
  transaction?: { currency?: string };
  responseControls?: { sensitiveData?: string };
  /** Returned as sent, used for the scheme tokenization request, never stored (token rule 7). */
  billing?: JsonObject;
  customer?: JsonObject;
  device?: JsonObject;
  externalTokenProvider?: JsonObject;
}

interface TextRule {
  pattern: RegExp;
  reason: string;
  /** Never echo the value (card number, security code, p2pe payload). */
  sensitive?: boolean;
  required?: boolean;
}

const ALNUM_1_40: TextRule = { pattern: /^[0-9A-Za-z]{1,40}$/, reason: 'It must be 1 to 40 characters from 0-9 a-z A-Z.' };
const stringOf = (min: number, max: number): TextRule => ({
  pattern: new RegExp(`^[\\s\\S]{${min},${max}}$`, 'u'),
  reason: `It must be ${min} to ${max} characters.`,
});
const hexOf = (min: number, max: number): TextRule => ({
  pattern: new RegExp(`^[0-9A-Fa-f]{${min},${max}}$`),
  reason: `It must be ${min} to ${max} hexadecimal characters.`,
});
const ADDRESS_FIELDS = ['city', 'country', 'postcodeZip', 'stateProvince', 'street', 'street2'] as const;

export function readSaveTokenFields(body: JsonObject): SaveTokenFields {
  const sof = group(body, 'sourceOfFunds', true)!;
  const provided = group(sof, 'sourceOfFunds.provided');
  return {
    sourceOfFunds: {
      type: choice(sof, 'sourceOfFunds.type', SOURCE_OF_FUNDS_TYPES),
      token: text(sof, 'sourceOfFunds.token', ALNUM_1_40),
      schemeTokenProvisioningIdentifier: text(sof, 'sourceOfFunds.schemeTokenProvisioningIdentifier', {
        pattern: /^[\x20-\x7e]{1,64}$/,
        reason: 'It must be 1 to 64 ASCII characters.',
      }),
      provided: provided && {
        card: readCard(group(provided, 'sourceOfFunds.provided.card')),
        provider_a: readProviderA(group(provided, 'sourceOfFunds.provided.provider_a')),
      },
    },
    shipping: readShipping(group(body, 'shipping')),
    verificationStrategy: choice(body, 'verificationStrategy', VERIFICATION_STRATEGIES),
    transaction: optional(group(body, 'transaction'), (t) => ({
      currency: text(t, 'transaction.currency', { pattern: /^[A-Z]{3}$/, reason: 'It must be an ISO 4217 currency code.' }),
    })),
    responseControls: optional(group(body, 'responseControls'), (r) => ({
      sensitiveData: text(r, 'responseControls.sensitiveData', stringOf(1, 50)),
    })),
    billing: group(body, 'billing'),
    customer: group(body, 'customer'),
    device: group(body, 'device'),
    externalTokenProvider: group(body, 'externalTokenProvider'),
  };
}

function readCard(card: JsonObject | undefined): CardFields | undefined {
  if (!card) {
    return undefined;
  }
  const path = 'sourceOfFunds.provided.card';
  const expiry = group(card, `${path}.expiry`);
  const p2pe = group(card, `${path}.p2pe`);
  return {
    number: text(card, `${path}.number`, { pattern: /^[0-9]{9,19}$/, reason: 'A card number is 9 to 19 digits.', sensitive: true }),
    expiry: expiry && {
      month: text(expiry, `${path}.expiry.month`, { pattern: /^(0?[1-9]|1[0-2])$/, reason: 'Month must be between 1 and 12.', required: true })!,
      year: text(expiry, `${path}.expiry.year`, { pattern: /^[0-9]{2}$/, reason: 'Year is two digits.', required: true })!,
    },
    nameOnCard: text(card, `${path}.nameOnCard`, stringOf(1, 256)),
    securityCode: text(card, `${path}.securityCode`, { pattern: /^[0-9]{3,4}$/, reason: 'A security code is 3 or 4 digits.', sensitive: true }),
    p2pe: p2pe && {
      cardBin: text(p2pe, `${path}.p2pe.cardBin`, { pattern: /^[0-9]{1,6}$/, reason: 'It must be 1 to 6 digits.' }),
      encryptionState: text(p2pe, `${path}.p2pe.encryptionState`, stringOf(5, 7)),
      initializationVector: text(p2pe, `${path}.p2pe.initializationVector`, hexOf(16, 64)),
      keySerialNumber: text(p2pe, `${path}.p2pe.keySerialNumber`, { ...hexOf(20, 20), required: true })!,
      payload: text(p2pe, `${path}.p2pe.payload`, { ...hexOf(32, 1024), sensitive: true, required: true })!,
    },
  };
}

function readProviderA(providerA: JsonObject | undefined): ProviderAFields | undefined {
  if (!providerA) {
    return undefined;
  }
  const path = 'sourceOfFunds.provided.provider_a';
  const agreement = group(providerA, `${path}.billingAgreement`);
  return {
    accountEmail: text(providerA, `${path}.accountEmail`, { pattern: /^[^\s@]+@[^\s@]+$/, reason: 'It must be an email address.' }),
    accountHolder: text(providerA, `${path}.accountHolder`, stringOf(1, 255)),
    payerId: text(providerA, `${path}.payerId`, stringOf(1, 13)),
    billingAgreement: agreement && {
      id: text(agreement, `${path}.billingAgreement.id`, { ...stringOf(1, 100), required: true })!,
      cardinality: choice(agreement, `${path}.billingAgreement.cardinality`, BILLING_AGREEMENT_CARDINALITIES, true)!,
      name: text(agreement, `${path}.billingAgreement.name`, stringOf(1, 255)),
      description: text(agreement, `${path}.billingAgreement.description`, stringOf(1, 255)),
    },
  };
}

function readShipping(shipping: JsonObject | undefined): ShippingFields | undefined {
  if (!shipping) {
    return undefined;
  }
  const address = group(shipping, 'shipping.address');
  const contact = group(shipping, 'shipping.contact');
  const origin = group(shipping, 'shipping.origin');
  return {
    address: address && compact(Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, text(address, `shipping.address.${f}`, stringOf(1, 100))]))),
    contact: contact && {
      firstName: text(contact, 'shipping.contact.firstName', stringOf(1, 50)),
      lastName: text(contact, 'shipping.contact.lastName', stringOf(1, 50)),
    },
    origin: origin && { postcodeZip: text(origin, 'shipping.origin.postcodeZip', stringOf(1, 10)) },
  };
}

function group(parent: JsonObject, path: string, required = false): JsonObject | undefined {
  const value = parent[lastSegment(path)];
  if (value === undefined || value === null) {
    if (required) {
      throw GatewayError.invalidField(path, 'MISSING', `Missing parameter ${path}.`);
    }
    return undefined;
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw GatewayError.invalidField(path, 'INVALID', `${shown(value, false)} is invalid. ${path} must be an object.`);
  }
  return value;
}

function text(parent: JsonObject, path: string, rule: TextRule): string | undefined {
  const value = parent[lastSegment(path)];
  if (value === undefined || value === null) {
    if (rule.required) {
      throw GatewayError.invalidField(path, 'MISSING', `Missing parameter ${path}.`);
    }
    return undefined;
  }
  if (typeof value !== 'string') {
    throw GatewayError.invalidField(path, 'INVALID', `${shown(value, rule.sensitive)} is invalid. A string is expected.`);
  }
  if (!rule.pattern.test(value)) {
    throw GatewayError.invalidField(path, 'INVALID', `${shown(value, rule.sensitive)} is invalid. ${rule.reason}`);
  }
  return value;
}

function choice<T extends string>(parent: JsonObject, path: string, values: readonly T[], required = false): T | undefined {
  const value = text(parent, path, { pattern: /^[\s\S]*$/, reason: '', required });
  if (value !== undefined && !(values as readonly string[]).includes(value)) {
    throw GatewayError.invalidField(path, 'INVALID', `${shown(value, false)} is invalid. It must be one of ${values.join(', ')}.`);
  }
  return value as T | undefined;
}

function optional<T>(value: JsonObject | undefined, read: (value: JsonObject) => T): T | undefined {
  return value === undefined ? undefined : read(value);
}

function compact<T extends Record<string, unknown>>(record: T): Record<string, string> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as Record<string, string>;
}

function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf('.') + 1);
}

function shown(value: JsonValue, sensitive = false): string {
  if (sensitive) {
    return 'The value';
  }
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return `Value '${text.length > 50 ? `${text.slice(0, 50)}…` : text}'`;
}
