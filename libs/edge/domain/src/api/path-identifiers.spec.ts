import { GatewayError } from '@gateway/contracts';
import {
  checkMerchantId,
  checkOrderId,
  checkTokenId,
  checkTransactionId,
  checkVersion,
} from './path-identifiers';

/** The spec's path identifiers table: each id's bounds and characters, refused as 400 INVALID on the identifier. */

function refusal(run: () => unknown): Record<string, unknown> {
  try {
    run();
  } catch (err) {
    if (err instanceof GatewayError)
      return { status: err.httpStatus, field: err.field, validationType: err.validationType };
    throw err;
  }
  throw new Error('expected a 400');
}

describe('path identifiers', () => {
  it('takes a merchant id of 1 to 40 characters from 0-9 a-z A-Z - _', () => {
    for (const id of ['M', 'TEST-merchant_01', 'm'.repeat(40)]) expect(checkMerchantId(id)).toBe(id);
    for (const id of ['', 'm'.repeat(41), 'merchant.1', 'merchant 1', 'mérchant']) {
      expect({ id, ...refusal(() => checkMerchantId(id)) }).toEqual({
        id,
        status: 400,
        field: 'merchantId',
        validationType: 'INVALID',
      });
    }
  });

  it('takes a token of 1 to 40 characters from 0-9 a-z A-Z only (Alnum)', () => {
    for (const id of ['9', '9123456789012345', 'T'.repeat(40)]) expect(checkTokenId(id)).toBe(id);
    for (const id of ['', 'T'.repeat(41), '9123-4567', '9123_4567', '9123 4567']) {
      expect({ id, ...refusal(() => checkTokenId(id)) }).toEqual({
        id,
        status: 400,
        field: 'tokenid',
        validationType: 'INVALID',
      });
    }
  });

  it.each([
    ['orderid', checkOrderId],
    ['transactionid', checkTransactionId],
  ])('%s: any 1 to 40 characters, counted as characters', (field, check) => {
    for (const id of ['1', 'order #1 (retry)', 'o'.repeat(40), 'ü'.repeat(40), '😀'.repeat(40)])
      expect(check(id)).toBe(id);
    for (const id of ['', 'o'.repeat(41), '😀'.repeat(41)]) {
      expect({ id, ...refusal(() => check(id)) }).toEqual({
        id,
        status: 400,
        field,
        validationType: 'INVALID',
      });
    }
  });

  it('takes a version within the range the gateway serves', () => {
    expect(checkVersion('57', { min: 1, max: 100 })).toBe(57);
    for (const raw of ['0', '101', '5x', '']) {
      expect({ raw, ...refusal(() => checkVersion(raw, { min: 1, max: 100 })) }).toEqual({
        raw,
        status: 400,
        field: 'version',
        validationType: 'INVALID',
      });
    }
  });
});
