import { TEST_CARD } from '@gateway/testing';
import { maskPan, redactCardData } from './redact-card-data';

describe('redactCardData', () => {
  it('masks a full card number 6.4 and drops the security code and track data', () => {
    const body = {
      sourceOfFunds: {
        type: 'CARD',
        provided: { card: { number: TEST_CARD, securityCode: '100', track2: ';5123450000000008=3901?', expiry: { month: '1', year: '39' } } },
      },
    };
    const redacted = redactCardData(body);
    expect(redacted).toEqual({
      sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008', expiry: { month: '1', year: '39' } } } },
    });
    expect(JSON.stringify(redacted)).not.toContain(TEST_CARD);
    // The caller's object is left as it was.
    expect(body.sourceOfFunds.provided.card.number).toBe(TEST_CARD);
  });

  it('drops track 1 data as well as track 2', () => {
    const redacted = redactCardData({
      sourceOfFunds: { provided: { card: { number: TEST_CARD, track1: '%B5123450000000008^CARDHOLDER/A^3901?' } } },
    });
    expect(redacted).toEqual({ sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } } });
  });

  it('masks a bank account number of four characters or fewer entirely', () => {
    const redacted = redactCardData({ sourceOfFunds: { provided: { provider_c: { bankAccountNumber: '1234' } } } });
    expect(redacted).toEqual({ sourceOfFunds: { provided: { provider_c: { bankAccountNumber: 'xxxx' } } } });
  });

  it('keeps a number the caller already masked', () => {
    expect(maskPan('512345xxxxxx0008')).toBe('512345xxxxxx0008');
  });

  it('masks a partly masked number that still shows too many digits', () => {
    expect(maskPan('51234500000xxxx8')).toBe('xxxxxxxx0008');
  });

  it('masks short card numbers like every other response does, and keeps only the last four of bank account numbers', () => {
    expect(maskPan('123456789')).toBe('12xxx6789');
    const redacted = redactCardData({
      sourceOfFunds: { provided: { provider_c: { bankAccountNumber: '0012345678', iban: 'DE89370400440532013000' } } },
    });
    expect(redacted).toEqual({
      sourceOfFunds: { provided: { provider_c: { bankAccountNumber: 'xxxxxx5678', iban: 'xxxxxxxxxxxxxxxxxx3000' } } },
    });
  });

  it('leaves bodies without card data untouched', () => {
    const body = { order: { id: 'o1' }, transaction: { id: 't1' } };
    expect(redactCardData(body)).toEqual(body);
  });
});
