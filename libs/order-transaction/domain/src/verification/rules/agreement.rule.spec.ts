import { GatewayError } from '@gateway/contracts';
import { refusal } from '../../card-operation/testing-orders';
import { checkAgreement } from './agreement.rule';

const NOW = new Date('2026-11-21T10:00:00.000Z');

describe('agreement rules', () => {
  it('accepts no agreement and a complete recurring agreement', () => {
    expect(() => checkAgreement(undefined, 'USD', NOW)).not.toThrow();
    expect(() =>
      checkAgreement(
        {
          id: 'agr-1',
          type: 'RECURRING',
          amountVariability: 'FIXED',
          startDate: '2026-12-01',
          expiryDate: '2027-12-01',
          minimumAmountPerPayment: '10.00',
          maximumAmountPerPayment: '10.5',
        },
        'USD',
        NOW,
      ),
    ).not.toThrow();
  });

  it('rejects a start date in the past', () => {
    const error = refusal(() => checkAgreement({ startDate: '2026-11-19' }, 'USD', NOW));
    expect(error).toMatchObject({ field: 'agreement.startDate', validationType: 'INVALID' });
    expect(error.explanation).toBe(
      "Value '2026-11-19' is invalid. The agreement start date must not be in the past.",
    );
  });

  it("accepts today's date in every time zone, down to UTC-12", () => {
    expect(() => checkAgreement({ startDate: '2026-11-21' }, 'USD', NOW)).not.toThrow();
    // At 10:00 UTC it is still the 20th in UTC-12.
    expect(() => checkAgreement({ startDate: '2026-11-20' }, 'USD', NOW)).not.toThrow();
    expect(() =>
      checkAgreement({ startDate: '2026-11-20' }, 'USD', new Date('2026-11-21T12:00:00.000Z')),
    ).toThrow(GatewayError);
  });

  it('does not hold a start date reused from the established agreement to today', () => {
    expect(() => checkAgreement({ id: 'agr-1', startDate: '2026-01-01' }, 'USD', NOW, { reusedStartDate: true })).not.toThrow();
    expect(refusal(() => checkAgreement({ id: 'agr-1', startDate: '2026-01-01' }, 'USD', NOW, { reusedStartDate: false }))).toMatchObject({
      field: 'agreement.startDate',
    });
  });

  it('requires amountVariability for recurring agreements', () => {
    const error = refusal(() => checkAgreement({ id: 'agr-1', type: 'RECURRING' }, 'USD', NOW));
    expect(error).toMatchObject({ field: 'agreement.amountVariability', validationType: 'MISSING' });
    expect(() => checkAgreement({ id: 'agr-1', type: 'INSTALLMENT' }, 'USD', NOW)).not.toThrow();
  });

  it('validates amounts against the order currency', () => {
    const error = refusal(() => checkAgreement({ maximumAmountPerPayment: '10.5' }, 'JPY', NOW));
    expect(error).toMatchObject({ field: 'agreement.maximumAmountPerPayment', validationType: 'INVALID' });
    expect(error.explanation).toBe("Value '10.5' is invalid. JPY amounts are whole numbers: JPY has no minor unit.");
  });

  it('rejects a minimum amount above the maximum, compared exactly', () => {
    const error = refusal(() =>
      checkAgreement({ minimumAmountPerPayment: '10.01', maximumAmountPerPayment: '10' }, 'USD', NOW),
    );
    expect(error).toMatchObject({ field: 'agreement.minimumAmountPerPayment', validationType: 'INVALID' });
    expect(() =>
      checkAgreement({ minimumAmountPerPayment: '10.00', maximumAmountPerPayment: '10' }, 'USD', NOW),
    ).not.toThrow();
  });

  it('rejects an expiry before the start', () => {
    const error = refusal(() =>
      checkAgreement({ startDate: '2027-01-02', expiryDate: '2027-01-01' }, 'USD', NOW),
    );
    expect(error).toMatchObject({ field: 'agreement.expiryDate', validationType: 'INVALID' });
  });

  it('accepts an agreement that expires on the day it starts', () => {
    expect(() => checkAgreement({ startDate: '2027-01-02', expiryDate: '2027-01-02' }, 'USD', NOW)).not.toThrow();
  });
});
