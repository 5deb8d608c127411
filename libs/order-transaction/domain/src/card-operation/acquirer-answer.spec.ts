import { Money } from '@gateway/money';
import { outcomeOfAcquirer } from '../refund-order/refund-outcome';
import { discrepancyOf } from './acquirer-answer';
import { outcomeOfAuthorization, outcomeOfFollowOn } from './card-outcome';
import {
  authorizationAnswer as authorization,
  captureAnswer as capture,
  refundAnswer as refund,
  voidAnswer as voided,
} from './testing-acquirer-answers';

/**
 * The check of an acquirer's answer against what was asked, on outcomes made by the real mappers
 * from what a connector answers (docs/decisions/acquirer-answer-checks.md).
 */
const usd = (amount: string) => Money.of(amount, 'USD');

const asked = (amount: string, partialApproval = false) => ({ amount: usd(amount), partialApproval });
const kind = (found: ReturnType<typeof discrepancyOf>) => found?.kind;

describe('discrepancyOf: an AUTHORIZE or PAY answer', () => {
  it('accepts the full amount approved, and a partial approval the request accepted', () => {
    expect(
      discrepancyOf(asked('10.00'), outcomeOfAuthorization(authorization(usd('10.00'), usd('10.00')))),
    ).toBeUndefined();
    expect(
      discrepancyOf(
        asked('10.51', true),
        outcomeOfAuthorization(authorization(usd('5.25'), usd('10.51'), 'PARTIALLY_APPROVED')),
      ),
    ).toBeUndefined();
  });

  it('refuses an approval of more than was asked', () => {
    const found = discrepancyOf(
      asked('10.00', true),
      outcomeOfAuthorization(authorization(usd('10.01'), usd('10.00'))),
    );
    expect(found).toEqual({ kind: 'MORE_THAN_ASKED', detail: 'approved 10.01 USD, asked 10.00' });
  });

  it('refuses a partial approval the request did not accept, whatever its code', () => {
    expect(
      kind(
        discrepancyOf(
          asked('10.51'),
          outcomeOfAuthorization(authorization(usd('5.25'), usd('10.51'), 'PARTIALLY_APPROVED')),
        ),
      ),
    ).toBe('PARTIAL_NOT_ACCEPTED');
    expect(
      kind(
        discrepancyOf(
          asked('10.51'),
          outcomeOfAuthorization(authorization(usd('5.25'), usd('10.51'), 'APPROVED')),
        ),
      ),
    ).toBe('PARTIAL_NOT_ACCEPTED');
    // The code claims a part though the amount is whole: which is true nobody can say.
    expect(
      kind(
        discrepancyOf(
          asked('10.00'),
          outcomeOfAuthorization(authorization(usd('10.00'), usd('10.00'), 'PARTIALLY_APPROVED')),
        ),
      ),
    ).toBe('PARTIAL_NOT_ACCEPTED');
  });

  it('refuses an answer in another currency than the operation, the approved and the requested amounts agreeing with each other', () => {
    const found = discrepancyOf(
      asked('10.00'),
      outcomeOfAuthorization(authorization(Money.of('10.00', 'EUR'), Money.of('10.00', 'EUR'))),
    );
    expect(found).toEqual({ kind: 'CURRENCY', detail: 'requested amount answered in EUR, asked in USD' });
    expect(
      kind(
        discrepancyOf(
          asked('10.00'),
          outcomeOfAuthorization(authorization(Money.of('10.00', 'EUR'), usd('10.00'))),
        ),
      ),
    ).toBe('CURRENCY');
  });

  it('refuses an approval of nothing, even where a partial approval was accepted', () => {
    expect(
      kind(
        discrepancyOf(
          asked('10.00', true),
          outcomeOfAuthorization(authorization(usd('0.00'), usd('10.00'), 'PARTIALLY_APPROVED')),
        ),
      ),
    ).toBe('NOT_POSITIVE');
  });

  it('refuses an answer whose requested amount is not what was asked', () => {
    expect(
      kind(
        discrepancyOf(
          asked('10.00', true),
          outcomeOfAuthorization(authorization(usd('5.00'), usd('20.00'), 'PARTIALLY_APPROVED')),
        ),
      ),
    ).toBe('REQUESTED_AMOUNT');
  });

  it('leaves a decline alone: it records the amount asked and moves nothing', () => {
    expect(
      discrepancyOf(
        asked('10.00'),
        outcomeOfAuthorization(authorization(usd('99.00'), usd('10.00'), 'DECLINED', 'FAILURE')),
      ),
    ).toBeUndefined();
  });
});

describe('discrepancyOf: a CAPTURE, REFUND or VOID answer (no partial approval)', () => {
  it('accepts the amount asked', () => {
    expect(discrepancyOf(asked('10.00'), outcomeOfFollowOn(capture(usd('10.00'))))).toBeUndefined();
    expect(discrepancyOf(asked('10.00'), outcomeOfAcquirer(refund(usd('10.00'))))).toBeUndefined();
    expect(discrepancyOf(asked('10.00'), outcomeOfFollowOn(voided()))).toBeUndefined();
  });

  it('refuses a part of a capture or refund, and a void answered PARTIALLY_APPROVED', () => {
    expect(kind(discrepancyOf(asked('10.00'), outcomeOfFollowOn(capture(usd('4.00')))))).toBe(
      'PARTIAL_NOT_ACCEPTED',
    );
    expect(
      kind(discrepancyOf(asked('10.00'), outcomeOfAcquirer(refund(usd('4.00'), 'PARTIALLY_APPROVED')))),
    ).toBe('PARTIAL_NOT_ACCEPTED');
    expect(kind(discrepancyOf(asked('10.00'), outcomeOfFollowOn(voided('PARTIALLY_APPROVED'))))).toBe(
      'PARTIAL_NOT_ACCEPTED',
    );
  });

  it('refuses more than asked, another currency and nothing', () => {
    expect(kind(discrepancyOf(asked('10.00'), outcomeOfFollowOn(capture(usd('10.01')))))).toBe(
      'MORE_THAN_ASKED',
    );
    expect(kind(discrepancyOf(asked('10.00'), outcomeOfAcquirer(refund(Money.of('10.00', 'EUR')))))).toBe(
      'CURRENCY',
    );
    expect(kind(discrepancyOf(asked('10.00'), outcomeOfAcquirer(refund(usd('0')))))).toBe('NOT_POSITIVE');
  });

  it("checks nothing of an outcome that is not an acquirer's (a browser payment provider's)", () => {
    expect(
      discrepancyOf(asked('10.00'), { result: 'SUCCESS', gatewayCode: 'PARTIALLY_APPROVED' }),
    ).toBeUndefined();
  });
});

describe("outcomeOfAuthorization: the issuer's checks of the card", () => {
  it('keeps the security code and AVS results as the acquirer gave them, a mismatch as a mismatch', () => {
    const outcome = outcomeOfAuthorization({
      ...authorization(usd('10.00'), usd('10.00')),
      cardSecurityCode: { gatewayCode: 'NO_MATCH', acquirerCode: 'N' },
      avs: { gatewayCode: 'NO_MATCH', acquirerCode: 'N' },
    });
    expect(outcome.cardSecurityCode).toEqual({ gatewayCode: 'NO_MATCH', acquirerCode: 'N' });
    expect(outcome.avs).toEqual({ gatewayCode: 'NO_MATCH', acquirerCode: 'N' });
  });
});
