import * as contracts from '@gateway/contracts';
import { getMetadataStorage } from 'class-validator';
import { MalformedMessageError, parseMessage } from './parse-message';

/** The message classes services receive: every validated class @gateway/contracts exports whose name ends Message or Query. */
const MESSAGE_CLASSES = Object.entries(contracts)
  .filter(([name, value]) => /(Message|Query)$/.test(name) && typeof value === 'function')
  .filter(([, value]) => getMetadataStorage().getTargetValidationMetadatas(value as new () => object, '', true, false).length > 0)
  .map(([name, value]) => [name, value as new () => object] as const);

function refusedProperties(messageClass: new () => object, data: unknown): string[] {
  try {
    parseMessage(messageClass, data);
    return [];
  } catch (err) {
    if (!(err instanceof MalformedMessageError)) throw err;
    return err.message.replace(/^malformed \w+: /, '').split(', ');
  }
}

/** A property the release after this one may add: this one must let it through, unread. */
const FUTURE = { addedInTheNextRelease: { any: ['value'] } };

describe('messages across a rolling deploy (docs/decisions/message-compatibility-across-a-roll.md)', () => {
  it('finds the message classes', () => {
    expect(MESSAGE_CLASSES.map(([name]) => name)).toEqual(
      expect.arrayContaining(['OrderOperationMessage', 'SealCardMessage', 'RecordOperationMessage', 'PayerTokenMessage', 'ExpiredPaymentsQuery']),
    );
  });

  it.each(MESSAGE_CLASSES)('%s: a property this release does not know is not a reason to refuse the message', (_name, messageClass) => {
    expect(refusedProperties(messageClass, FUTURE)).not.toContain('addedInTheNextRelease');
  });

  it('an order operation with properties this release does not know, at every level of the envelope, is received', () => {
    const merchant = { id: 'TESTMERCHANT', mode: 'TEST', settings: { ...contracts.defaultMerchantSettings(), ...FUTURE }, ...FUTURE };
    const message = {
      envelope: { merchant, apiVersion: 100, requestId: 'req-1', authMethod: 'PASSWORD', fencingToken: '7', ...FUTURE },
      apiOperation: 'VOID',
      orderId: 'o-1',
      transactionId: 't-1',
      body: { apiOperation: 'VOID', transaction: { targetTransactionId: 't-0' } },
      session: { id: 'SESSION0002AAAAAAAAAAAAAAAAAAAAAA', ...FUTURE },
      ...FUTURE,
    };
    expect(refusedProperties(contracts.OrderOperationMessage, message)).toEqual([]);
  });

  describe("an order operation's deadline (docs/decisions/operation-deadline.md)", () => {
    const operation = {
      envelope: { merchant: { id: 'TESTMERCHANT', mode: 'TEST', settings: contracts.defaultMerchantSettings() }, apiVersion: 100, requestId: 'req-1', authMethod: 'PASSWORD', fencingToken: '7' },
      apiOperation: 'REFUND',
      orderId: 'o-1',
      transactionId: 't-1',
      body: { apiOperation: 'REFUND', transaction: { amount: '1.00', currency: 'USD' } },
    };

    it('is received from an edge of this release, and its absence (an edge of the release before) is no reason to refuse', () => {
      expect(refusedProperties(contracts.OrderOperationMessage, { ...operation, deadline: Date.now() + 10_000 })).toEqual([]);
      expect(refusedProperties(contracts.OrderOperationMessage, operation)).toEqual([]);
      expect(parseMessage(contracts.OrderOperationMessage, operation).deadline).toBeUndefined();
    });

    it('is refused only when it is no time at all (a fault between our processes)', () => {
      expect(refusedProperties(contracts.OrderOperationMessage, { ...operation, deadline: 'soon' })).toEqual(['deadline']);
      expect(refusedProperties(contracts.OrderOperationMessage, { ...operation, deadline: 1.5 })).toEqual(['deadline']);
    });

    it('is not part of the envelope, which services pass on in the requests that complete an operation', () => {
      const envelopeProperties = getMetadataStorage()
        .getTargetValidationMetadatas(contracts.RequestEnvelope, '', true, false)
        .map((m) => m.propertyName);
      expect(envelopeProperties).not.toContain('deadline');
      // A record a service of a later release sent with one is still received (and never refused for it: no ledger record checks a deadline).
      expect(refusedProperties(contracts.RecordOperationMessage, { deadline: 1 })).not.toContain('deadline');
    });
  });

  describe("a token operation's deadline (operation-deadline.md, amendment on token operations)", () => {
    const envelope = { merchant: { id: 'TESTMERCHANT', mode: 'TEST', settings: contracts.defaultMerchantSettings() }, apiVersion: 100, requestId: 'req-1', authMethod: 'PASSWORD' };
    const body = { sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008' } } } };
    const messages = [
      ['TokenOperationMessage (PUT)', contracts.TokenOperationMessage, { envelope, tokenId: '9999990000000001', body }],
      ['CreateTokenMessage (POST)', contracts.CreateTokenMessage, { envelope, body }],
      ['TokenReferenceMessage (GET, DELETE)', contracts.TokenReferenceMessage, { envelope, tokenId: '9999990000000001' }],
    ] as const;

    it.each(messages)('%s: received with one (an edge of this release) and without (an edge of the release before)', (_name, messageClass, message) => {
      expect(refusedProperties(messageClass, { ...message, deadline: Date.now() + 10_000 })).toEqual([]);
      expect(refusedProperties(messageClass, message)).toEqual([]);
      expect(parseMessage(messageClass as new () => { deadline?: number }, message).deadline).toBeUndefined();
      expect(refusedProperties(messageClass, { ...message, deadline: 'soon' })).toEqual(['deadline']);
    });
  });

  describe("an order operation's body as sent (payment-sessions.md, amendment 2026-11-27)", () => {
    const operation = {
      envelope: { merchant: { id: 'TESTMERCHANT', mode: 'TEST', settings: contracts.defaultMerchantSettings() }, apiVersion: 100, requestId: 'req-1', authMethod: 'PASSWORD', fencingToken: '7' },
      apiOperation: 'VERIFY',
      orderId: 'o-1',
      transactionId: 't-1',
      body: { apiOperation: 'VERIFY', order: { currency: 'USD' }, session: { id: 'SESSION0002AAAAAAAAAAAAAAAAAAAAAA' } },
    };
    const asSent = { apiOperation: 'VERIFY', session: { id: 'SESSION0002AAAAAAAAAAAAAAAAAAAAAA' } };

    it('is received from an edge of this release and hashed; without it (an edge of the release before) the filled body is hashed, as before', () => {
      expect(refusedProperties(contracts.OrderOperationMessage, { ...operation, asSent })).toEqual([]);
      const received = parseMessage(contracts.OrderOperationMessage, { ...operation, asSent });
      expect(received.asSent).toEqual(asSent);
      expect(contracts.requestHashBasis(received)).toEqual(asSent);
      expect(contracts.requestHashBasis(parseMessage(contracts.OrderOperationMessage, operation))).toEqual(operation.body);
    });
  });

  describe("a read's deadline (operation-deadline.md, amendments on reads)", () => {
    const envelope = { merchant: { id: 'TESTMERCHANT', mode: 'TEST', settings: contracts.defaultMerchantSettings() }, apiVersion: 100, requestId: 'req-1', authMethod: 'CERTIFICATE' };
    const messages = [
      ['RetrieveOrderMessage (GET order, the LOCK_FAILURE answer)', contracts.RetrieveOrderMessage, { envelope, orderId: 'o-1' }],
      ['RetrieveTransactionMessage (GET transaction, the replay check)', contracts.RetrieveTransactionMessage, { envelope, orderId: 'o-1', transactionId: 't-1' }],
      ['SealCardMessage (the session\'s seal)', contracts.SealCardMessage, { envelope, bindingId: 'SESSION1', card: {} }],
      ['RevealCardMessage (GET session with UNMASK)', contracts.RevealCardMessage, { envelope, bindingId: 'SESSION1', sealed: 'sealed' }],
      [
        "FindReplayMessage (a gone session's replay)",
        contracts.FindReplayMessage,
        { envelope, apiOperation: 'VERIFY', orderId: 'o-1', transactionId: 't-1', body: { apiOperation: 'VERIFY', session: { id: 'SESSION0002AAAAAAAAAAAAAAAAAAAAAA' } } },
      ],
    ] as const;

    it.each(messages)('%s: received with one (an edge of this release) and without (an edge of the release before)', (_name, messageClass, message) => {
      const deadline = Date.now() + 10_000;
      expect(refusedProperties(messageClass, { ...message, deadline })).toEqual([]);
      expect(parseMessage(messageClass as new () => { deadline?: number }, { ...message, deadline }).deadline).toBe(deadline);
      expect(refusedProperties(messageClass, message)).toEqual([]);
      expect(parseMessage(messageClass as new () => { deadline?: number }, message).deadline).toBeUndefined();
      expect(refusedProperties(messageClass, { ...message, deadline: 'soon' })).toEqual(['deadline']);
    });
  });
});

