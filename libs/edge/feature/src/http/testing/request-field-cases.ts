import { CompiledSchema, compileSchema, describeRequest, FieldDescription, RequestClass, ValidationType } from '@gateway/api-fields';
import { JsonObject, JsonValue, ORDER_OPERATION_REQUESTS, ORDER_OPERATION_SUBJECTS, OrderApiOperation, SaveTokenRequest, SUBJECTS } from '@gateway/contracts';
import { parseDecimal } from '@gateway/money';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';

/**
 * The table of the edge's field validation tests (request-validation.int-spec.ts), and of the
 * field-coverage report (tools/scripts/field-coverage.ts): for every request field of every
 * operation, a valid value at each bound, an invalid value past each bound, a wrong JSON type,
 * and MISSING where the field is required. Values come from each field type's samples; the
 * coverage script checks each field's type against the spec's own text, so the table follows
 * the spec, not the code under test.
 */
export type OperationName = OrderApiOperation | 'TOKEN';

export const OPERATION_REQUESTS: Record<OperationName, RequestClass> = { ...ORDER_OPERATION_REQUESTS, TOKEN: SaveTokenRequest };
export const OPERATION_NAMES = Object.keys(OPERATION_REQUESTS) as OperationName[];

/** A minimal valid body of each operation: what the edge tests vary. */
export const BASE_BODIES: Record<OperationName, JsonObject> = {
  TOKEN: { sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED } } } } },
  VERIFY: {
    apiOperation: 'VERIFY',
    order: { currency: 'USD' },
    sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED } } } },
  },
  REFUND: { apiOperation: 'REFUND', transaction: { amount: '10.00', currency: 'USD' } },
  INITIATE_BROWSER_PAYMENT: {
    apiOperation: 'INITIATE_BROWSER_PAYMENT',
    browserPayment: { returnUrl: 'https://merchant.example/return' },
    order: { amount: '10.00', currency: 'USD' },
    sourceOfFunds: { type: 'PROVIDER_C' },
  },
  CONFIRM_BROWSER_PAYMENT: { apiOperation: 'CONFIRM_BROWSER_PAYMENT' },
  AUTHORIZE: {
    apiOperation: 'AUTHORIZE',
    order: { amount: '10.00', currency: 'USD' },
    sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED } } } },
  },
  PAY: {
    apiOperation: 'PAY',
    order: { amount: '10.00', currency: 'USD' },
    sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: { ...TEST_EXPIRY.APPROVED } } } },
  },
  CAPTURE: { apiOperation: 'CAPTURE', transaction: { amount: '10.00', currency: 'USD' } },
  VOID: { apiOperation: 'VOID', transaction: { targetTransactionId: 't1' } },
};

/** The subject each operation is dispatched to. */
export const OPERATION_SUBJECTS: Record<OperationName, string> = { ...ORDER_OPERATION_SUBJECTS, TOKEN: SUBJECTS.tokenVault.saveToken };

export const FIELD_CASES_TEST = 'libs/edge/feature/src/http/request-validation.int-spec.ts';

export type CaseKind = 'valid' | 'invalid' | 'wrong JSON type' | 'missing';

export interface FieldCase {
  kind: CaseKind;
  /** The concrete path the value is put at (array elements at index 0). */
  path: string;
  /** The value to put at `path`; absent for a `missing` case, which removes the field. */
  value?: JsonValue;
  /** null: accepted (201, forwarded). Otherwise the error.field and validationType expected. */
  expected: null | { field: string; validationType: ValidationType };
  /** Never echoed in the error body. */
  sensitive: boolean;
}

export interface FieldCases {
  /** The path as the spec writes it: `order.item[n].unitPrice`, `order.custom.<name>`. */
  path: string;
  notation: string;
  cases: FieldCase[];
}

export function fieldCases(operation: OperationName): FieldCases[] {
  const target = OPERATION_REQUESTS[operation];
  return describeRequest(target).map((field) => ({ path: field.path, notation: field.notation, cases: casesOf(target, field) }));
}

function casesOf(target: RequestClass, field: FieldDescription): FieldCase[] {
  const path = field.path.replace(/\[n\]/g, '[0]');
  const invalid = (value: JsonValue, at = path): FieldCase => ({
    kind: 'invalid',
    path,
    value,
    expected: { field: at, validationType: 'INVALID' },
    sensitive: field.sensitive,
  });
  const valid = (value: JsonValue): FieldCase => ({ kind: 'valid', path, value, expected: null, sensitive: field.sensitive });
  const cases: FieldCase[] = [];
  switch (field.kind) {
    case 'value': {
      const samples = field.type!.samples;
      cases.push(...samples.valid.map((v) => valid(v as JsonValue)), ...samples.invalid.map((v) => invalid(v as JsonValue)));
      cases.push({ ...invalid(samples.wrongType as JsonValue), kind: 'wrong JSON type' });
      break;
    }
    case 'group':
      cases.push(valid(minimalGroup(schemaAt(target, path))));
      cases.push({ ...invalid('x'), kind: 'wrong JSON type' });
      break;
    case 'array': {
      const arrayPath = path.slice(0, -'[0]'.length);
      const element = minimalGroup(schemaAt(target, path));
      return [
        { ...valid([element]), path: arrayPath },
        { ...valid([element, element]), path: arrayPath },
        { ...invalid([], arrayPath), path: arrayPath },
        { ...invalid(['x'], `${arrayPath}[0]`), path: arrayPath },
        { ...invalid({}, arrayPath), path: arrayPath, kind: 'wrong JSON type' },
      ];
    }
    case 'custom': {
      const mapPath = path.slice(0, -'.<name>'.length);
      const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`field${i}`, 'v']));
      const longName = `n${'a'.repeat(98)}`;
      return [
        { ...valid({ giftWrap: 'x' }), path: mapPath },
        { ...valid({ [longName]: 'é'.repeat(250) }), path: mapPath },
        { ...valid(fifty), path: mapPath },
        { ...invalid({ ...fifty, field50: 'v' }, mapPath), path: mapPath },
        { ...invalid({ giftWrap: '' }, `${mapPath}.giftWrap`), path: mapPath },
        { ...invalid({ giftWrap: 'x'.repeat(251) }, `${mapPath}.giftWrap`), path: mapPath },
        { ...invalid({ 'gift-wrap': 'x' }, `${mapPath}.gift-wrap`), path: mapPath },
        { ...invalid({ [`${longName}a`]: 'x' }, `${mapPath}.${longName}a`), path: mapPath },
        { ...invalid({ giftWrap: 1 }, `${mapPath}.giftWrap`), path: mapPath, kind: 'wrong JSON type' },
        { ...invalid([], mapPath), path: mapPath, kind: 'wrong JSON type' },
      ];
    }
  }
  if (field.required) {
    cases.push({ kind: 'missing', path, expected: { field: path, validationType: 'MISSING' }, sensitive: field.sensitive });
  }
  return cases;
}

/** The schema of the group at a concrete path (`order.item[0]` is the item's schema). */
export function schemaAt(target: RequestClass, path: string): CompiledSchema {
  let schema = compileSchema(target);
  for (const segment of path.split('.')) {
    const name = segment.replace(/\[\d+\]$/, '');
    const field = schema.byName.get(name);
    if (!field) {
      throw new Error(`${target.name} has no field ${path}`);
    }
    if (field.meta.kind !== 'group' && field.meta.kind !== 'array') {
      return schema;
    }
    schema = field.schema();
  }
  return schema;
}

/** A group with each of its REQUIRED fields set to its first valid sample. */
export function minimalGroup(schema: CompiledSchema): JsonObject {
  const out: JsonObject = {};
  for (const field of schema.fields) {
    if (!field.meta.required) continue;
    const meta = field.meta;
    if (meta.kind === 'value') out[field.name] = meta.type.samples.valid[0] as JsonValue;
    else if (meta.kind === 'group') out[field.name] = minimalGroup(field.schema());
    else if (meta.kind === 'array') out[field.name] = [minimalGroup(field.schema())];
    else out[field.name] = { giftWrap: 'x' };
  }
  return out;
}

/**
 * `base` with `fieldCase` applied: the value put at its path (groups on the way created with
 * their required fields), or the field removed.
 */
export function bodyWith(operation: OperationName, base: JsonObject, fieldCase: FieldCase): JsonObject {
  const target = OPERATION_REQUESTS[operation];
  const body = structuredClone(base);
  const segments = fieldCase.path.split('.');
  let node: JsonObject = body;
  for (let i = 0; i < segments.length - 1; i++) {
    const match = /^(.*)\[(\d+)\]$/.exec(segments[i]);
    const name = match ? match[1] : segments[i];
    const prefix = segments.slice(0, i + 1).join('.');
    if (match) {
      const list = (node[name] ??= [minimalGroup(schemaAt(target, prefix))]) as JsonObject[];
      node = list[Number(match[2])];
    } else {
      node = (node[name] ??= minimalGroup(schemaAt(target, prefix))) as JsonObject;
    }
  }
  const leaf = segments[segments.length - 1];
  if (fieldCase.kind === 'missing') {
    delete node[leaf];
  } else {
    node[leaf] = structuredClone(fieldCase.value!);
  }
  return withContext(operation, body, fieldCase);
}

/**
 * What a few values need around them to be valid under the cross-field rules: a provider_b
 * payment carries its bank identifier; a token's card details come with sourceOfFunds.type; an
 * initiate's order.amount equals the one sub-total a case sets; a capture's or refund's amount holds
 * the tax a case sets.
 */
function withContext(operation: OperationName, body: JsonObject, fieldCase: FieldCase): JsonObject {
  const sourceOfFunds = body.sourceOfFunds as JsonObject | undefined;
  if (operation === 'INITIATE_BROWSER_PAYMENT' && sourceOfFunds?.type === 'PROVIDER_B' && !sourceOfFunds.provided) {
    sourceOfFunds.provided = { provider_b: { bankIdentifier: '12345678' } };
  }
  if (operation === 'TOKEN' && fieldCase.kind === 'valid' && sourceOfFunds && !sourceOfFunds.type && !sourceOfFunds.token) {
    sourceOfFunds.type = 'CARD';
  }
  const subTotals = ['order.itemAmount', 'order.shippingAndHandlingAmount', 'order.taxAmount'];
  const ordersAmount = operation === 'INITIATE_BROWSER_PAYMENT' || operation === 'AUTHORIZE' || operation === 'PAY';
  if (ordersAmount && fieldCase.kind === 'valid' && subTotals.includes(fieldCase.path)) {
    (body.order as JsonObject).amount = fieldCase.value!;
  }
  // A capture's or refund's tax is part of its amount: a valid tax comes with an amount that holds it.
  const taxed = operation === 'REFUND' || operation === 'CAPTURE';
  if (taxed && fieldCase.kind === 'valid' && fieldCase.path === 'transaction.taxAmount') {
    const transaction = body.transaction as JsonObject;
    if (parseDecimal(String(fieldCase.value)).greaterThan(parseDecimal(String(transaction.amount)))) {
      transaction.amount = fieldCase.value!;
    }
  }
  return body;
}

type RuleCase = { name: string; body: (base: JsonObject) => JsonObject; expected: FieldCase['expected'] };

/** CAPTURE's and REFUND's `transaction.taxAmount` is part of `transaction.amount` (transactionTaxWithinAmount). */
const TAX_WITHIN_AMOUNT_CASES: RuleCase[] = [
  {
    name: 'a taxAmount above the amount it is part of',
    body: (base) => withPatch(base, { transaction: { amount: '1.00', currency: 'USD', taxAmount: '1000000000000' } }),
    expected: { field: 'transaction.taxAmount', validationType: 'INVALID' },
  },
  {
    name: 'a taxAmount of the whole amount',
    body: (base) => withPatch(base, { transaction: { amount: '1.00', currency: 'USD', taxAmount: '1' } }),
    expected: null,
  },
];

/** The cross-field rules' cases, which no single field's type shows. */
export const RULE_CASES: Record<OperationName, RuleCase[]> = {
  TOKEN: [
    {
      // Token rule 9 is the vault's: the expiry may be the named session's or the stored token's.
      name: 'verificationStrategy BASIC without the card expiry in the body (the vault decides)',
      body: (base) => withPatch(base, { verificationStrategy: 'BASIC', sourceOfFunds: { type: 'CARD', provided: { card: { number: card(base) } } } }),
      expected: null,
    },
    {
      name: 'sourceOfFunds.type left unset with card details',
      body: (base) => withPatch(base, { sourceOfFunds: { provided: { card: { number: card(base) } } } }),
      expected: { field: 'sourceOfFunds.type', validationType: 'MISSING' },
    },
    {
      name: 'sourceOfFunds.type left unset with a token alone',
      body: (base) => withPatch(base, { sourceOfFunds: { token: '9999888877776666' } }),
      expected: null,
    },
  ],
  REFUND: [
    {
      name: 'a refund of zero',
      body: (base) => withPatch(base, { transaction: { amount: '0.00', currency: 'USD' } }),
      expected: { field: 'transaction.amount', validationType: 'INVALID' },
    },
    {
      name: 'more decimals than the currency has',
      body: (base) => withPatch(base, { transaction: { amount: '10', currency: 'JPY', taxAmount: '0.5' } }),
      expected: { field: 'transaction.taxAmount', validationType: 'INVALID' },
    },
    ...TAX_WITHIN_AMOUNT_CASES,
    {
      name: 'an amount of exactly 1000000000000, the largest the API answers',
      body: (base) => withPatch(base, { transaction: { amount: '1000000000000', currency: 'USD' } }),
      expected: null,
    },
    {
      name: 'an amount above 1000000000000',
      body: (base) => withPatch(base, { transaction: { amount: '99999999999999', currency: 'USD' } }),
      expected: { field: 'transaction.amount', validationType: 'INVALID' },
    },
    {
      name: 'a line item unit price below -1000000000000',
      body: (base) => withPatch(base, { transaction: { amount: '1', currency: 'USD', item: [{ name: 'a', quantity: '1', unitPrice: '-1000000000001' }] } }),
      expected: { field: 'transaction.item[0].unitPrice', validationType: 'INVALID' },
    },
    {
      name: 'a CLF amount with 4 decimal places (the API answers at most 3)',
      body: (base) => withPatch(base, { transaction: { amount: '1.2345', currency: 'CLF' } }),
      expected: { field: 'transaction.amount', validationType: 'INVALID' },
    },
  ],
  INITIATE_BROWSER_PAYMENT: [
    {
      name: 'provider_b without its bank identifier',
      body: (base) => withPatch(base, { sourceOfFunds: { type: 'PROVIDER_B' } }),
      expected: { field: 'sourceOfFunds.provided.provider_b.bankIdentifier', validationType: 'MISSING' },
    },
    {
      name: '3 items of 0.1 against itemAmount 0.3',
      body: (base) => withPatch(base, { order: { amount: '0.3', currency: 'USD', itemAmount: '0.3', item: tenths(3) } }),
      expected: null,
    },
    {
      name: 'items summing 0.001 off itemAmount',
      body: (base) => withPatch(base, { order: { amount: '0.301', currency: 'BHD', itemAmount: '0.301', item: tenths(3) } }),
      expected: { field: 'order.itemAmount', validationType: 'INVALID' },
    },
    {
      name: 'sub-totals summing 0.001 off order.amount',
      body: (base) => withPatch(base, { order: { amount: '10.001', currency: 'BHD', itemAmount: '9', taxAmount: '1' } }),
      expected: { field: 'order.amount', validationType: 'INVALID' },
    },
    {
      name: 'a payment of zero',
      body: (base) => withPatch(base, { order: { amount: '0', currency: 'USD' } }),
      expected: { field: 'order.amount', validationType: 'INVALID' },
    },
    {
      name: 'an amount above 1000000000000',
      body: (base) => withPatch(base, { order: { amount: '10000000000000', currency: 'USD' } }),
      expected: { field: 'order.amount', validationType: 'INVALID' },
    },
    {
      name: 'a line item unit tax above 1000000000000',
      body: (base) => withPatch(base, { order: { amount: '1', currency: 'USD', item: [{ name: 'a', quantity: '1', unitPrice: '1', unitTaxAmount: '1000000000001' }] } }),
      expected: { field: 'order.item[0].unitTaxAmount', validationType: 'INVALID' },
    },
  ],
  AUTHORIZE: [
    {
      name: 'an authorisation of zero',
      body: (base) => withPatch(base, { order: { amount: '0.00', currency: 'USD' } }),
      expected: { field: 'order.amount', validationType: 'INVALID' },
    },
    {
      name: 'an amount above 1000000000000',
      body: (base) => withPatch(base, { order: { amount: '1000000000001', currency: 'USD' } }),
      expected: { field: 'order.amount', validationType: 'INVALID' },
    },
    {
      name: 'sub-totals summing 0.001 off order.amount',
      body: (base) => withPatch(base, { order: { amount: '10.001', currency: 'BHD', itemAmount: '9', taxAmount: '1' } }),
      expected: { field: 'order.amount', validationType: 'INVALID' },
    },
  ],
  PAY: [
    {
      name: 'more decimals than the currency has',
      body: (base) => withPatch(base, { order: { amount: '10.5', currency: 'JPY' } }),
      expected: { field: 'order.amount', validationType: 'INVALID' },
    },
    {
      name: 'an amount of exactly 1000000000000, the largest the API answers',
      body: (base) => withPatch(base, { order: { amount: '1000000000000', currency: 'USD' } }),
      expected: null,
    },
    {
      name: 'an amount above 1000000000000',
      body: (base) => withPatch(base, { order: { amount: '99999999999999', currency: 'USD' } }),
      expected: { field: 'order.amount', validationType: 'INVALID' },
    },
    {
      name: 'a CLF amount with 3 decimal places',
      body: (base) => withPatch(base, { order: { amount: '1.234', currency: 'CLF' } }),
      expected: null,
    },
    {
      name: 'an authentication amount above 1000000000000',
      body: (base) => withPatch(base, { authentication: { amount: '1000000000001' } }),
      expected: { field: 'authentication.amount', validationType: 'INVALID' },
    },
  ],
  CAPTURE: [
    {
      name: 'a capture of zero',
      body: (base) => withPatch(base, { transaction: { amount: '0', currency: 'USD' } }),
      expected: { field: 'transaction.amount', validationType: 'INVALID' },
    },
    {
      name: 'more decimals than the currency has',
      body: (base) => withPatch(base, { transaction: { amount: '1.0001', currency: 'BHD' } }),
      expected: { field: 'transaction.amount', validationType: 'INVALID' },
    },
    {
      name: 'an amount above 1000000000000',
      body: (base) => withPatch(base, { transaction: { amount: '10000000000000', currency: 'USD' } }),
      expected: { field: 'transaction.amount', validationType: 'INVALID' },
    },
    {
      name: 'an amount of exactly 1000000000000, the largest the API answers',
      body: (base) => withPatch(base, { transaction: { amount: '1000000000000', currency: 'USD' } }),
      expected: null,
    },
    ...TAX_WITHIN_AMOUNT_CASES,
  ],
  VOID: [
    {
      name: 'a void without its target',
      body: (base) => withPatch(base, { transaction: {} }),
      expected: { field: 'transaction.targetTransactionId', validationType: 'MISSING' },
    },
  ],
  CONFIRM_BROWSER_PAYMENT: [
    {
      name: 'taxAmount off the items unit tax by 0.01',
      body: (base) => withPatch(base, { order: { taxAmount: '0.31', item: [{ name: 'a', quantity: '3', unitPrice: '1', unitTaxAmount: '0.1' }] } }),
      expected: { field: 'order.taxAmount', validationType: 'INVALID' },
    },
    {
      name: 'an amount above 1000000000000, without a currency',
      body: (base) => withPatch(base, { order: { amount: '99999999999999' } }),
      expected: { field: 'order.amount', validationType: 'INVALID' },
    },
    {
      name: 'a large exact sum of items',
      body: (base) =>
        withPatch(base, {
          order: {
            amount: '99999999999.99',
            itemAmount: '99999999999.99',
            item: [
              { name: 'a', quantity: '9999999999', unitPrice: '9.99' },
              { name: 'b', quantity: '1', unitPrice: '100000009.98' },
            ],
          },
        }),
      expected: null,
    },
  ],
  VERIFY: [
    {
      name: 'an agreement amount with more decimals than the order currency',
      body: (base) => withPatch(base, { order: { currency: 'JPY' }, agreement: { minimumAmountPerPayment: '1.5' } }),
      expected: { field: 'agreement.minimumAmountPerPayment', validationType: 'INVALID' },
    },
    {
      name: 'an agreement amount up to 99999999999999, the range the spec answers for it',
      body: (base) => withPatch(base, { agreement: { maximumAmountPerPayment: '99999999999999' } }),
      expected: null,
    },
    {
      name: 'an authentication amount above 1000000000000',
      body: (base) => withPatch(base, { authentication: { amount: '99999999999999' } }),
      expected: { field: 'authentication.amount', validationType: 'INVALID' },
    },
    {
      name: 'a CLF agreement amount with 4 decimal places',
      body: (base) => withPatch(base, { order: { currency: 'CLF' }, agreement: { minimumAmountPerPayment: '1.0001' } }),
      expected: { field: 'agreement.minimumAmountPerPayment', validationType: 'INVALID' },
    },
  ],
};

function withPatch(base: JsonObject, patch: JsonObject): JsonObject {
  return { ...structuredClone(base), ...structuredClone(patch) };
}

function tenths(count: number): JsonObject[] {
  return Array.from({ length: count }, (_, i) => ({ name: `item ${i}`, quantity: '1', unitPrice: '0.1' }));
}

/** The card number of the base body (the tests' only card). */
function card(base: JsonObject): string {
  const sourceOfFunds = base.sourceOfFunds as { provided: { card: { number: string } } };
  return sourceOfFunds.provided.card.number;
}
