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
});
