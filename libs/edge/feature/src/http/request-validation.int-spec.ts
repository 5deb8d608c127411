import type { FastifyInstance } from 'fastify';
import { showValue } from '@gateway/api-fields';
import { JsonObject } from '@gateway/contracts';
import { SESSION_STORE, SessionStore } from '@gateway/edge/data-access';
import { standaloneBus } from '@gateway/platform';
import { TEST_CARD } from '@gateway/testing';
import { EdgeTestApp, startEdgeTestApp } from '../testing/edge-test-app';
import { BASE_BODIES, bodyWith, FieldCase, fieldCases, OPERATION_NAMES, OPERATION_SUBJECTS, OperationName, RULE_CASES } from './testing/request-field-cases';

/**
 * Every request field of every operation, through the HTTP edge (authentication, path checks,
 * JSON parsing, validation, lock, dispatch), with a recording fake service on each operation's
 * subject: a valid value at each bound is accepted and reaches the service unchanged; an
 * invalid value past each bound, a wrong JSON type or a missing REQUIRED field is answered 400
 * with the field's full path, and the service is never called.
 */

describe('request validation through the HTTP edge', () => {
  let edge: EdgeTestApp;
  let fastify: FastifyInstance;
  let merchantId: string;
  let authorization: string;
  const received: Record<string, JsonObject[]> = {};

  beforeAll(async () => {
    for (const subject of Object.values(OPERATION_SUBJECTS)) {
      received[subject] = [];
      standaloneBus.register(subject, async (data) => {
        received[subject].push((data as { body: JsonObject }).body);
        return { body: { result: 'SUCCESS', response: { gatewayCode: 'APPROVED' } } };
      });
    }
    edge = await startEdgeTestApp();
    fastify = edge.fastify;
    ({ id: merchantId, authorization } = await edge.createMerchant());
    await seedSessionsForValidIds(edge, merchantId);
  });

  afterAll(async () => {
    for (const subject of Object.values(OPERATION_SUBJECTS)) standaloneBus.unregister(subject);
    await edge?.close();
  });

  let sequence = 0;
  async function put(operation: OperationName, body: JsonObject) {
    sequence++;
    const url =
      operation === 'TOKEN'
        ? `/api/rest/version/57/merchant/${merchantId}/token/9${String(sequence).padStart(15, '0')}`
        : `/api/rest/version/100/merchant/${merchantId}/order/order-${sequence}/transaction/txn-1`;
    const response = await fastify.inject({
      method: 'PUT',
      url,
      headers: { authorization, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    return { status: response.statusCode, body: JSON.parse(response.body) as JsonObject, text: response.body };
  }

  /** Sends the body; what happened, in a shape a failed expectation prints readably. */
  async function outcome(operation: OperationName, body: JsonObject) {
    const subject = OPERATION_SUBJECTS[operation];
    const before = received[subject].length;
    const response = await put(operation, body);
    const forwarded = received[subject].slice(before);
    const error = response.body.error as JsonObject | undefined;
    return {
      status: response.status,
      error: error ? { field: error.field, validationType: error.validationType } : null,
      serviceCalls: forwarded.length,
      forwardedUnchanged: forwarded.length === 1 && JSON.stringify(forwarded[0]) === JSON.stringify(body),
      text: response.text,
      explanation: error?.explanation,
    };
  }

  function expectedOutcome(expected: FieldCase['expected']) {
    return expected === null
      ? { status: 201, error: null, serviceCalls: 1, forwardedUnchanged: true }
      : { status: 400, error: { field: expected.field.slice(0, 100), validationType: expected.validationType }, serviceCalls: 0 };
  }

  it('accepts each operation\'s base body', async () => {
    for (const operation of OPERATION_NAMES) {
      expect({ operation, ...(await outcome(operation, BASE_BODIES[operation])) }).toMatchObject({ operation, ...expectedOutcome(null) });
    }
  });

  describe.each(OPERATION_NAMES)('%s', (operation) => {
    const fields = fieldCases(operation);

    it.each(fields.map((f) => [f.path, f] as const))('%s', async (_path, field) => {
      for (const fieldCase of field.cases) {
        const body = bodyWith(operation, BASE_BODIES[operation], fieldCase);
        const result = await outcome(operation, body);
        const label = { kind: fieldCase.kind, value: fieldCase.sensitive ? '(sensitive)' : fieldCase.value };
        expect({ ...label, ...result }).toMatchObject({ ...label, ...expectedOutcome(fieldCase.expected) });
        if (fieldCase.expected !== null) {
          expect(typeof result.explanation).toBe('string');
        }
        if (fieldCase.sensitive && typeof fieldCase.value === 'string' && fieldCase.value.length >= 3 && result.status === 400) {
          expect(result.text).not.toContain(fieldCase.value);
        }
      }
    });

    it.each(RULE_CASES[operation].map((c) => [c.name, c] as const))('cross-field rule: %s', async (_name, ruleCase) => {
      const result = await outcome(operation, ruleCase.body(BASE_BODIES[operation]));
      expect(result).toMatchObject(expectedOutcome(ruleCase.expected));
    });

    it('rejects an unknown field at any depth, inside arrays too, before anything else', async () => {
      const unknowns = [
        { ...BASE_BODIES[operation], colour: 'red' },
        bodyWith(operation, BASE_BODIES[operation], { kind: 'valid', path: `${deepGroup(operation)}.zzUnknown`, value: 'x', expected: null, sensitive: false }),
      ];
      expect(await outcome(operation, unknowns[0])).toMatchObject({ status: 400, error: { field: 'colour', validationType: 'UNSUPPORTED' }, serviceCalls: 0 });
      expect(await outcome(operation, unknowns[1])).toMatchObject({
        status: 400,
        error: { field: `${deepGroup(operation)}.zzUnknown`, validationType: 'UNSUPPORTED' },
        serviceCalls: 0,
      });
    });
  });

  it("rejects another operation's fields as UNSUPPORTED", async () => {
    // A verification moves no money: its transaction group is descriptive, without an amount.
    expect(await outcome('VERIFY', { ...BASE_BODIES.VERIFY, transaction: { amount: '1.00', currency: 'USD' } })).toMatchObject({
      status: 400,
      error: { field: 'transaction.amount', validationType: 'UNSUPPORTED' },
      serviceCalls: 0,
    });
    expect(await outcome('CONFIRM_BROWSER_PAYMENT', { ...BASE_BODIES.CONFIRM_BROWSER_PAYMENT, browserPayment: { returnUrl: 'https://a.example/x' } })).toMatchObject({
      status: 400,
      error: { field: 'browserPayment', validationType: 'UNSUPPORTED' },
    });
    expect(await outcome('TOKEN', { ...BASE_BODIES.TOKEN, apiOperation: 'VERIFY' })).toMatchObject({
      status: 400,
      error: { field: 'apiOperation', validationType: 'UNSUPPORTED' },
      serviceCalls: 0,
    });
  });

  it('names an unknown field inside a line item by its 0-based index', async () => {
    const item = { name: 'a', quantity: '1', unitPrice: '1.00' };
    const body = { ...BASE_BODIES.REFUND, transaction: { amount: '1.00', currency: 'USD', item: [item, item, { ...item, colour: 'red' }] } };
    expect(await outcome('REFUND', body)).toMatchObject({ error: { field: 'transaction.item[2].colour', validationType: 'UNSUPPORTED' } });
  });

  it('explains an invalid month with the value and the rule, and never echoes the card number', async () => {
    const card = (fields: JsonObject) => ({ ...BASE_BODIES.VERIFY, sourceOfFunds: { type: 'CARD', provided: { card: fields } } });
    const month = await put('VERIFY', card({ number: TEST_CARD, expiry: { month: '13', year: '39' } }));
    expect(month.body).toEqual({
      error: {
        cause: 'INVALID_REQUEST',
        explanation: "Value '13' is invalid. Month must be between 1 and 12.",
        field: 'sourceOfFunds.provided.card.expiry.month',
        validationType: 'INVALID',
      },
      result: 'ERROR',
    });
    const number = await put('VERIFY', card({ number: `${TEST_CARD}12345`, expiry: { month: '1', year: '39' } }));
    expect(number.body).toMatchObject({ error: { field: 'sourceOfFunds.provided.card.number', validationType: 'INVALID' } });
    expect(number.text).not.toContain(TEST_CARD);
  });

  it('refuses a card number keyed as the name on card, masked in the explanation, before any service sees it', async () => {
    const withName = (operation: 'TOKEN' | 'VERIFY' | 'PAY', nameOnCard: string): JsonObject => {
      const body = BASE_BODIES[operation] as { sourceOfFunds: { provided: { card: JsonObject } } };
      const card = { ...body.sourceOfFunds.provided.card, nameOnCard };
      return { ...BASE_BODIES[operation], sourceOfFunds: { ...body.sourceOfFunds, provided: { card } } };
    };
    for (const operation of ['TOKEN', 'VERIFY', 'PAY'] as const) {
      for (const nameOnCard of [TEST_CARD, '5123 4500 0000 0008']) {
        const result = await outcome(operation, withName(operation, nameOnCard));
        expect({ operation, nameOnCard, ...result }).toMatchObject({
          operation,
          nameOnCard,
          status: 400,
          error: { field: 'sourceOfFunds.provided.card.nameOnCard', validationType: 'INVALID' },
          serviceCalls: 0,
        });
        expect(result.text).not.toContain(nameOnCard);
      }
      expect(await outcome(operation, withName(operation, 'A. N. Other'))).toMatchObject({ status: 201, serviceCalls: 1 });
    }
  });

  it('refuses an amount above 1000000000000 as a 400 on its field, before any service sees it', async () => {
    const subject = OPERATION_SUBJECTS.PAY;
    const before = received[subject].length;
    const pay = await put('PAY', { ...BASE_BODIES.PAY, order: { amount: '99999999999999', currency: 'USD' } });
    expect({ status: pay.status, body: pay.body }).toEqual({
      status: 400,
      body: {
        error: {
          cause: 'INVALID_REQUEST',
          explanation: `Value '${showValue('99999999999999')}' is invalid. amount must be at most 1000000000000.`,
          field: 'order.amount',
          validationType: 'INVALID',
        },
        result: 'ERROR',
      },
    });
    expect(received[subject].length).toBe(before);
  });

  it('checks apiOperation before the fields', async () => {
    expect(await outcome('VERIFY', { apiOperation: 'VERIFYX', colour: 'red' })).toMatchObject({ error: { field: 'apiOperation', validationType: 'INVALID' } });
  });
});

/** A nested group of each operation, for an unknown field two levels down. */
function deepGroup(operation: OperationName): string {
  switch (operation) {
    case 'TOKEN':
    case 'VERIFY':
    case 'AUTHORIZE':
    case 'PAY':
      return 'sourceOfFunds.provided.card';
    case 'REFUND':
    case 'CAPTURE':
      return 'transaction.item[0]';
    case 'VOID':
      return 'transaction.acquirer';
    case 'INITIATE_BROWSER_PAYMENT':
    case 'CONFIRM_BROWSER_PAYMENT':
      return 'order.item[0]';
  }
}

/**
 * A session.id of the right type must also name a session of the merchant (docs/sessions.md):
 * the valid session.id values of the field cases name empty sessions of this merchant, which
 * fill nothing, so the body reaches the service unchanged.
 */
async function seedSessionsForValidIds(edge: EdgeTestApp, merchantId: string): Promise<void> {
  const store = edge.running.app.get<SessionStore>(SESSION_STORE);
  const ids = new Set(
    OPERATION_NAMES.flatMap((operation) => fieldCases(operation))
      .filter((field) => field.path === 'session.id')
      .flatMap((field) => field.cases.filter((c) => c.expected === null && typeof c.value === 'string').map((c) => c.value as string)),
  );
  const at = new Date().toISOString();
  for (const id of ids) {
    await store.create(
      { id, merchantId, version: '0123456789', updateStatus: 'NO_UPDATE', fields: {}, createdAt: at, updatedAt: at },
      { ttlMs: 3_600_000, expiredNoticeMs: 0 },
    );
  }
}
