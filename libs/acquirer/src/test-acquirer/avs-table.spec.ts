import { TEST_EXPIRY, TEST_CARD } from '@gateway/testing';
import { AVS_GATEWAY_CODES } from '../codes/verification-codes';
import { parseCardExpiry } from '../card/card-expiry';
import { Pan } from '../card/pan';
import { avsOutcome, TEST_AVS_TABLE } from './avs-table';
import { TestAcquirer } from './test-acquirer';

describe('test acquirer AVS table', () => {
  it('has exactly one row for each of the 12 AVS codes of the spec', () => {
    expect(TEST_AVS_TABLE.map((row) => row.gatewayCode).sort()).toEqual([...AVS_GATEWAY_CODES].sort());
    expect(new Set(TEST_AVS_TABLE.map((row) => row.postcode)).size).toBe(12);
  });

  it.each(TEST_AVS_TABLE.map((row) => [row.gatewayCode, row.postcode, row.acquirerCode] as const))(
    'answers %s for a billing street naming it, or for postcode %s',
    (gatewayCode, postcode, acquirerCode) => {
      const expected = acquirerCode ? { gatewayCode, acquirerCode } : { gatewayCode };
      expect(avsOutcome({ street: gatewayCode, postcodeZip: '10001' }, true)).toEqual(expected);
      expect(avsOutcome({ street: gatewayCode.toLowerCase().replace(/_/g, ' ') }, true)).toEqual(expected);
      expect(avsOutcome({ street: '1 Main Street', postcodeZip: postcode }, true)).toEqual(expected);
    },
  );

  it('reads the postcode without spaces or hyphens', () => {
    expect(avsOutcome({ postcodeZip: '000 09' }, true).gatewayCode).toBe('NO_MATCH');
    expect(avsOutcome({ postcodeZip: '000-12' }, true).gatewayCode).toBe('ZIP_MATCH');
  });

  it('lets a street naming a code win over a test postcode', () => {
    expect(avsOutcome({ street: 'No Match', postcodeZip: '00012' }, true).gatewayCode).toBe('NO_MATCH');
  });

  it('matches what it was given for ordinary addresses', () => {
    expect(avsOutcome({ street: '1 Main Street', postcodeZip: '10001' }, true)).toEqual({
      gatewayCode: 'ADDRESS_ZIP_MATCH',
      acquirerCode: 'Y',
    });
    expect(avsOutcome({ street: '1 Main Street', city: 'Springfield' }, true)).toEqual({
      gatewayCode: 'ADDRESS_MATCH',
      acquirerCode: 'A',
    });
    expect(avsOutcome({ postcodeZip: '10001', country: 'USA' }, true)).toEqual({
      gatewayCode: 'ZIP_MATCH',
      acquirerCode: 'Z',
    });
  });

  it('answers NOT_REQUESTED without a billing street or postcode', () => {
    expect(avsOutcome(undefined, true)).toEqual({ gatewayCode: 'NOT_REQUESTED' });
    expect(avsOutcome({ city: 'Springfield', country: 'USA' }, true)).toEqual({
      gatewayCode: 'NOT_REQUESTED',
    });
    expect(avsOutcome({ street: '  ' }, false)).toEqual({ gatewayCode: 'NOT_REQUESTED' });
  });

  it('answers SERVICE_NOT_AVAILABLE_RETRY when the issuer never answered', () => {
    expect(avsOutcome({ street: 'NO_MATCH' }, false)).toEqual({
      gatewayCode: 'SERVICE_NOT_AVAILABLE_RETRY',
      acquirerCode: 'R',
    });
  });

  it('drives response.cardholderVerification.avs of a verification from the billing address', async () => {
    const answer = await new TestAcquirer().verify({
      merchantId: 'TESTMERCHANT1',
      orderId: 'order-1',
      transactionId: 'verify-1',
      currency: 'USD',
      card: {
        number: Pan.of(TEST_CARD),
        expiry: parseCardExpiry(TEST_EXPIRY.APPROVED.month, TEST_EXPIRY.APPROVED.year),
      },
      cardholder: { billingAddress: { street: 'Name Zip Match', postcodeZip: '10001' } },
    });
    expect(answer.avs).toEqual({ gatewayCode: 'NAME_ZIP_MATCH', acquirerCode: 'L' });
    expect(answer.gatewayCode).toBe('APPROVED');
  });
});
