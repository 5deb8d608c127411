import type { AgreementTermsRow } from '@gateway/order-transaction/data-access';
import { refusal } from '../card-operation/testing-orders';
import { agreementForOperation, carriesStoredAgreementText, fillAgreement, termsToEstablish } from './agreement-terms';

const NOW = new Date('2027-03-01T10:00:00.000Z');
/** The card is the request's own, not a token's. */
const CARD_GIVEN = { storedCredential: false };

/** As a first payment in USD established it, months ago. */
const ESTABLISHED: AgreementTermsRow = {
  type: 'RECURRING',
  amountVariability: 'FIXED',
  customData: 'plan-gold',
  expiryDate: '2028-11-25',
  startDate: '2026-11-25',
  minimumAmountPerPayment: '5.5',
  maximumAmountPerPayment: '20',
  amountCurrency: 'USD',
  minimumDaysBetweenPayments: 28,
  numberOfPayments: 24,
  paymentFrequency: 'MONTHLY',
  retailer: { tradingName: 'Shop', merchantCategoryCode: '5411' },
};

describe('an agreement filled from the established one', () => {
  it('takes every term a request naming only the id leaves out, the type above all', () => {
    expect(fillAgreement({ id: 'agr-1' }, ESTABLISHED, 'USD')).toEqual({
      id: 'agr-1',
      type: 'RECURRING',
      amountVariability: 'FIXED',
      customData: 'plan-gold',
      expiryDate: '2028-11-25',
      startDate: '2026-11-25',
      minimumAmountPerPayment: '5.5',
      maximumAmountPerPayment: '20',
      minimumDaysBetweenPayments: 28,
      numberOfPayments: 24,
      paymentFrequency: 'MONTHLY',
      retailer: { tradingName: 'Shop', merchantCategoryCode: '5411' },
    });
  });

  it('keeps the terms the request gives, for this operation, and a retailer whole', () => {
    const filled = fillAgreement(
      {
        id: 'agr-1',
        type: 'RECURRING',
        amountVariability: 'VARIABLE',
        maximumAmountPerPayment: '30.00',
        retailer: { tradingName: 'Other' },
      },
      ESTABLISHED,
      'USD',
    );
    expect(filled).toMatchObject({
      type: 'RECURRING',
      amountVariability: 'VARIABLE',
      maximumAmountPerPayment: '30.00',
      minimumAmountPerPayment: '5.5',
      numberOfPayments: 24,
    });
    expect(filled?.retailer).toEqual({ tradingName: 'Other' });
  });

  it('leaves the established amounts per payment out of an operation in another currency', () => {
    const filled = fillAgreement({ id: 'agr-1' }, ESTABLISHED, 'EUR');
    expect(filled).not.toHaveProperty('minimumAmountPerPayment');
    expect(filled).not.toHaveProperty('maximumAmountPerPayment');
    expect(fillAgreement({ id: 'agr-1', minimumAmountPerPayment: '4' }, ESTABLISHED, 'EUR')).toMatchObject({
      minimumAmountPerPayment: '4',
    });
  });

  it('refuses another type than the established one on agreement.type, saying a type does not change', () => {
    const error = refusal(() => fillAgreement({ id: 'agr-1', type: 'INSTALLMENT' }, ESTABLISHED, 'USD'));
    expect(error).toMatchObject({ httpStatus: 400, field: 'agreement.type', validationType: 'INVALID' });
    expect(error.explanation).toBe(
      "Value 'INSTALLMENT' is invalid. Agreement 'agr-1' was established as RECURRING by its first payment; an agreement's type does not change.",
    );
    const other = refusal(() =>
      fillAgreement({ id: 'agr-2', type: 'UNSCHEDULED' }, { type: 'OTHER' }, 'USD'),
    );
    expect(other.explanation).toContain(
      'established as OTHER by its first payment (OTHER when it states no type)',
    );
  });

  it('is the request itself when nothing is established', () => {
    const given = { id: 'agr-1', type: 'UNSCHEDULED' as const };
    expect(fillAgreement(given, null, 'USD')).toBe(given);
    expect(fillAgreement(undefined, ESTABLISHED, 'USD')).toBeUndefined();
  });
});

describe('the agreement rules on the filled agreement', () => {
  it('take the established amountVariability for a RECURRING type the request repeats', () => {
    expect(agreementForOperation({ id: 'agr-1', type: 'RECURRING' }, ESTABLISHED, 'USD', NOW, CARD_GIVEN)).toMatchObject({
      amountVariability: 'FIXED',
    });
    expect(
      refusal(() => agreementForOperation({ id: 'agr-1', type: 'RECURRING' }, null, 'USD', NOW, CARD_GIVEN)),
    ).toMatchObject({
      field: 'agreement.amountVariability',
      validationType: 'MISSING',
    });
  });

  it('accept the established start date though it is past, left out or repeated, and refuse another past start date the request gives', () => {
    expect(agreementForOperation({ id: 'agr-1' }, ESTABLISHED, 'USD', NOW, CARD_GIVEN)).toMatchObject({
      startDate: '2026-11-25',
    });
    // A merchant that sends the whole agreement with every payment of the series repeats it.
    expect(agreementForOperation({ id: 'agr-1', startDate: '2026-11-25' }, ESTABLISHED, 'USD', NOW, CARD_GIVEN)).toMatchObject({
      startDate: '2026-11-25',
    });
    expect(
      refusal(() => agreementForOperation({ id: 'agr-1', startDate: '2026-11-24' }, ESTABLISHED, 'USD', NOW, CARD_GIVEN)),
    ).toMatchObject({
      field: 'agreement.startDate',
      validationType: 'INVALID',
    });
  });

  it('check what the request gives against the established terms it keeps', () => {
    expect(
      refusal(() =>
        agreementForOperation({ id: 'agr-1', minimumAmountPerPayment: '25' }, ESTABLISHED, 'USD', NOW, CARD_GIVEN),
      ),
    ).toMatchObject({
      field: 'agreement.minimumAmountPerPayment',
    });
    expect(
      refusal(() =>
        agreementForOperation(
          { id: 'agr-1', expiryDate: '2026-12-01', startDate: '2027-03-02' },
          null,
          'USD',
          NOW,
          CARD_GIVEN,
        ),
      ),
    ).toMatchObject({
      field: 'agreement.expiryDate',
    });
  });
});

describe('a payment in a series with stored card details (spec, agreement.id)', () => {
  it.each(['RECURRING', 'INSTALLMENT', 'UNSCHEDULED'] as const)('a %s payment with a token must name its agreement', (type) => {
    const given = { type, amountVariability: 'FIXED' as const };
    expect(refusal(() => agreementForOperation(given, null, 'USD', NOW, { storedCredential: true }))).toMatchObject({
      field: 'agreement.id',
      validationType: 'MISSING',
      explanation: `Missing parameter agreement.id. A ${type} payment with stored card details (a token) must name its agreement.`,
    });
    expect(agreementForOperation({ id: 'agr-1', ...given }, null, 'USD', NOW, { storedCredential: true })).toMatchObject({ id: 'agr-1' });
    // The card given in the request (the series' first payment, say): no id needed.
    expect(agreementForOperation(given, null, 'USD', NOW, CARD_GIVEN)).toEqual(given);
  });

  it('asks nothing of a payment of type OTHER, or with no agreement', () => {
    expect(agreementForOperation({ type: 'OTHER' }, null, 'USD', NOW, { storedCredential: true })).toEqual({ type: 'OTHER' });
    expect(agreementForOperation(undefined, null, 'USD', NOW, { storedCredential: true })).toBeUndefined();
  });
});

describe('what the first successful payment establishes', () => {
  it('is the terms it ran on, its amounts with their currency, OTHER when it stated no type', () => {
    expect(termsToEstablish({ id: 'agr-1', minimumAmountPerPayment: '1.50', retailer: {} }, 'EUR')).toEqual({
      type: 'OTHER',
      minimumAmountPerPayment: '1.50',
      amountCurrency: 'EUR',
    });
    expect(
      termsToEstablish(
        { id: 'agr-1', type: 'INSTALLMENT', numberOfPayments: 6, retailer: { tradingName: 'Shop' } },
        'USD',
      ),
    ).toEqual({
      type: 'INSTALLMENT',
      numberOfPayments: 6,
      retailer: { tradingName: 'Shop' },
    });
  });
});

describe("whether an operation carries the established agreement's text", () => {
  it('does when the request gave none and the agreement holds some, not otherwise', () => {
    const filled = (given: { id: string; customData?: string }, established: AgreementTermsRow | null) => fillAgreement(given, established, 'USD');
    expect(carriesStoredAgreementText({ id: 'agr-1' }, filled({ id: 'agr-1' }, ESTABLISHED))).toBe(true);
    // The request's own text: its record keeps it, whatever became of the stored one.
    const stated = { id: 'agr-1', customData: 'stated now' };
    expect(carriesStoredAgreementText(stated, filled(stated, ESTABLISHED))).toBe(false);
    const { customData: _none, ...withoutText } = ESTABLISHED;
    expect(carriesStoredAgreementText({ id: 'agr-1' }, filled({ id: 'agr-1' }, withoutText))).toBe(false);
    expect(carriesStoredAgreementText({ id: 'agr-1' }, filled({ id: 'agr-1' }, null))).toBe(false);
    expect(carriesStoredAgreementText(undefined, undefined)).toBe(false);
  });
});
