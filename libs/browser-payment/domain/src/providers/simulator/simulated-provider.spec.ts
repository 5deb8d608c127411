import { Money } from '@gateway/money';
import { InMemorySimulatorStore } from '../../testing/in-memory-stores';
import { highestConfirmable, NO_INCREASE } from '../confirm-allowance';
import { TestClock } from '../../testing/browser-payment-test-bed';
import { SimulatedProvider } from './simulated-provider';
import { SIMULATOR_PROFILES } from './simulator-profiles';

const eur = (amount: string) => Money.of(amount, 'EUR');

function simulator(provider: 'provider_a' | 'provider_b' | 'provider_c' = 'provider_a') {
  const store = new InMemorySimulatorStore();
  return { store, adapter: new SimulatedProvider(SIMULATOR_PROFILES[provider], store, new TestClock()) };
}

async function captured(adapter: SimulatedProvider, amount: string): Promise<string> {
  const reference = await adapter.createPayment({ operation: 'PAY', amount: eur(amount) });
  await adapter.decide(reference, 'approve');
  await adapter.execute(reference, 'PAY', eur(amount));
  return reference;
}

async function authorized(adapter: SimulatedProvider, amount: string): Promise<string> {
  const reference = await adapter.createPayment({ operation: 'AUTHORIZE', amount: eur(amount) });
  await adapter.decide(reference, 'approve');
  await adapter.execute(reference, 'AUTHORIZE', eur(amount));
  return reference;
}

describe('a simulated provider', () => {
  it('opens a payment under a reference of its own', async () => {
    const { adapter, store } = simulator('provider_b');
    const reference = await adapter.createPayment({ operation: 'PAY', amount: eur('12.50') });
    expect(reference).toMatch(/^PB-[0-9A-F]{20}$/);
    expect(await store.find(reference)).toMatchObject({ provider: 'provider_b', status: 'CREATED', amount: '12.50', currency: 'EUR' });
  });

  it('executes only what the payer approved, and the same execution again is answered as done', async () => {
    const { adapter } = simulator();
    const reference = await adapter.createPayment({ operation: 'PAY', amount: eur('10.00') });
    expect(await adapter.execute(reference, 'PAY', eur('10.00'))).toMatchObject({ approved: false, gatewayCode: 'DECLINED' });
    expect(await adapter.decide(reference, 'approve')).toBe(true);
    expect(await adapter.decide(reference, 'cancel')).toBe(false);
    expect(await adapter.payerReturned(reference)).toEqual({
      outcome: 'APPROVED',
      payer: { accountEmail: 'payer@wallet.example', accountHolder: 'Simulated Payer' },
    });
    expect(await adapter.execute(reference, 'PAY', eur('8.00'))).toMatchObject({ approved: true, gatewayCode: 'APPROVED' });
    expect(await adapter.execute(reference, 'PAY', eur('8.00'))).toMatchObject({ approved: true });
    expect(await adapter.execute(reference, 'PAY', eur('9.00'))).toMatchObject({ approved: false });
    // Asked again once the money moved (a return retried after its completion): still the payer's approval.
    expect(await adapter.payerReturned(reference)).toMatchObject({ outcome: 'APPROVED' });
  });

  it.each(['provider_a', 'provider_b', 'provider_c'] as const)(
    '%s releases an approval nobody executed (the confirm window passed): a late execution is declined, a repeat changes nothing',
    async (provider) => {
      const { adapter, store } = simulator(provider);
      for (const operation of provider === 'provider_a' ? (['PAY', 'AUTHORIZE'] as const) : (['PAY'] as const)) {
        const reference = await adapter.createPayment({ operation, amount: eur('10.00') });
        await adapter.decide(reference, 'approve');
        expect(await adapter.releaseApproval(reference)).toBe(true);
        expect(await store.find(reference)).toMatchObject({ status: 'ABANDONED' });
        expect(await adapter.releaseApproval(reference)).toBe(true);
        expect(await adapter.execute(reference, operation, eur('10.00'))).toMatchObject({ approved: false, providerCode: 'NOT_APPROVED_BY_PAYER' });
        expect(await adapter.payerReturned(reference)).toEqual({ outcome: 'CANCELLED' });
      }
    },
  );

  it('keeps an execution already made when asked to release the approval, and says so', async () => {
    const { adapter, store } = simulator();
    const paid = await captured(adapter, '10.00');
    expect(await adapter.releaseApproval(paid)).toBe(false);
    expect(await store.find(paid)).toMatchObject({ status: 'CAPTURED', capturedAmount: '10.00' });
    const held = await authorized(adapter, '10.00');
    expect(await adapter.releaseApproval(held)).toBe(false);
    expect(await store.find(held)).toMatchObject({ status: 'AUTHORIZED' });
    // Never approved, cancelled, or reversed: nothing is held, nothing to release.
    const cancelled = await adapter.createPayment({ operation: 'PAY', amount: eur('10.00') });
    await adapter.decide(cancelled, 'cancel');
    expect(await adapter.releaseApproval(cancelled)).toBe(true);
    expect(await store.find(cancelled)).toMatchObject({ status: 'CANCELLED' });
  });

  it.each(['provider_a', 'provider_b', 'provider_c'] as const)(
    '%s lets a confirm go up to 115%% of the approved amount, rounded down to the currency\'s digits',
    (provider) => {
      const { adapter } = simulator(provider);
      expect(adapter.highestConfirmable(eur('30.00')).toFixed()).toBe('34.50');
      expect(adapter.highestConfirmable(Money.of('19.99', 'USD')).toFixed()).toBe('22.98');
      expect(adapter.highestConfirmable(Money.of('0.01', 'USD')).toFixed()).toBe('0.01');
      expect(adapter.highestConfirmable(Money.of('999', 'JPY')).toFixed()).toBe('1148');
      expect(adapter.highestConfirmable(Money.of('1.999', 'BHD')).toFixed()).toBe('2.298');
    },
  );

  it('never lets a confirm\'s limit fall below the approved amount itself, when the rounding would cut it', () => {
    // CLF has 4 decimals in ISO 4217 and a request amount at most 3: an approval of 1.2345
    // (stored before that cut) rounds down to 1.234, and confirming the approval must still pass.
    expect(highestConfirmable(Money.of('1.2345', 'CLF'), NO_INCREASE).toString()).toBe('1.2345');
    expect(highestConfirmable(Money.of('1.2345', 'CLF'), { increase: '0.0001' }).toString()).toBe('1.2345');
    expect(highestConfirmable(eur('30.00'), NO_INCREASE).toFixed()).toBe('30.00');
  });

  it('declines, moving nothing, an execution above its allowance over what the payer approved; the allowed amount is executed after', async () => {
    const { adapter, store } = simulator();
    const reference = await adapter.createPayment({ operation: 'PAY', amount: eur('30.00') });
    await adapter.decide(reference, 'approve');
    expect(await adapter.execute(reference, 'PAY', eur('34.51'))).toEqual({ approved: false, gatewayCode: 'DECLINED', providerCode: 'AMOUNT_ABOVE_APPROVAL' });
    expect(await store.find(reference)).toMatchObject({ status: 'APPROVED', amount: '30.00', capturedAmount: '0' });
    expect(await adapter.execute(reference, 'PAY', eur('34.50'))).toMatchObject({ approved: true, providerCode: 'EXECUTED' });
    expect(await store.find(reference)).toMatchObject({ status: 'CAPTURED', capturedAmount: '34.50' });
  });

  it('treats a payer back without a decision as abandoned: a late approval is refused', async () => {
    const { adapter } = simulator();
    const reference = await adapter.createPayment({ operation: 'PAY', amount: eur('10.00') });
    expect(await adapter.payerReturned(reference)).toEqual({ outcome: 'CANCELLED' });
    expect(await adapter.decide(reference, 'approve')).toBe(false);
    expect(await adapter.execute(reference, 'PAY', eur('10.00'))).toMatchObject({ approved: false });
  });

  it('refunds a captured payment up to what was captured, and nothing of an authorisation', async () => {
    const { adapter } = simulator();
    const paid = await adapter.createPayment({ operation: 'PAY', amount: eur('10.00') });
    await adapter.decide(paid, 'approve');
    await adapter.execute(paid, 'PAY', eur('10.00'));
    const first = await adapter.refund(paid, 'r1', eur('6.00'));
    expect(first).toMatchObject({ approved: true, gatewayCode: 'APPROVED' });
    expect(first.reference).toMatch(/^PAR-[0-9A-F]{20}$/);
    expect(await adapter.refund(paid, 'r2', eur('4.01'))).toMatchObject({ approved: false, providerCode: 'REFUND_EXCEEDS_CAPTURED_AMOUNT' });
    expect(await adapter.refund(paid, 'r3', eur('4.00'))).toMatchObject({ approved: true });

    const authorized = await adapter.createPayment({ operation: 'AUTHORIZE', amount: eur('10.00') });
    await adapter.decide(authorized, 'approve');
    await adapter.execute(authorized, 'AUTHORIZE', eur('10.00'));
    expect(await adapter.refund(authorized, 'r1', eur('1.00'))).toMatchObject({ approved: false, providerCode: 'NOTHING_CAPTURED' });
  });

  it('makes one refund per key: the same refund again, or at once, is answered the first refund and moves nothing', async () => {
    const { adapter, store } = simulator();
    const paid = await captured(adapter, '10.00');
    const first = await adapter.refund(paid, 'r1', eur('6.00'));
    expect(first).toMatchObject({ approved: true, providerCode: 'REFUNDED' });
    expect(await adapter.refund(paid, 'r1', eur('6.00'))).toEqual(first);
    const [one, other] = await Promise.all([adapter.refund(paid, 'r2', eur('1.00')), adapter.refund(paid, 'r2', eur('1.00'))]);
    expect(other).toEqual(one);
    expect((await store.find(paid))!.refundedAmount).toBe('7');
    // Another key is another refund.
    expect(await adapter.refund(paid, 'r3', eur('3.00'))).toMatchObject({ approved: true });
    expect((await store.find(paid))!.refundedAmount).toBe('10');
  });

  it('answers a declined refund again with its decline, though the payment could be refunded by now', async () => {
    const { adapter, store } = simulator();
    const reference = await adapter.createPayment({ operation: 'PAY', amount: eur('10.00') });
    await adapter.decide(reference, 'approve');
    const declined = await adapter.refund(reference, 'r1', eur('5.00'));
    expect(declined).toEqual({ approved: false, gatewayCode: 'DECLINED', providerCode: 'NOTHING_CAPTURED' });

    await adapter.execute(reference, 'PAY', eur('10.00'));
    expect(await adapter.refund(reference, 'r1', eur('5.00'))).toEqual(declined);
    expect((await store.find(reference))!.refundedAmount).toBe('0');

    const exceeding = await adapter.refund(reference, 'r2', eur('10.01'));
    expect(exceeding).toMatchObject({ approved: false, providerCode: 'REFUND_EXCEEDS_CAPTURED_AMOUNT' });
    expect(await adapter.refund(reference, 'r2', eur('10.01'))).toEqual(exceeding);
    expect((await store.find(reference))!.refundedAmount).toBe('0');
  });

  it('refuses a key used again for another amount, moving nothing, and the first refund stands', async () => {
    const { adapter, store } = simulator();
    const paid = await captured(adapter, '10.00');
    const first = await adapter.refund(paid, 'r1', eur('6.00'));
    expect(await adapter.refund(paid, 'r1', eur('4.00'))).toEqual({
      approved: false,
      gatewayCode: 'DECLINED',
      providerCode: 'REFUND_ID_REUSED',
      refundKeyUsedFor: eur('6.00'),
    });
    expect((await store.find(paid))!.refundedAmount).toBe('6');
    expect(await adapter.refund(paid, 'r1', eur('6.00'))).toEqual(first);

    // Refused the same way after a declined first request: the decline stands, nothing moves.
    expect(await adapter.refund(paid, 'r2', eur('5.00'))).toMatchObject({ providerCode: 'REFUND_EXCEEDS_CAPTURED_AMOUNT' });
    expect(await adapter.refund(paid, 'r2', eur('4.00'))).toMatchObject({ providerCode: 'REFUND_ID_REUSED', refundKeyUsedFor: eur('5.00') });
    expect((await store.find(paid))!.refundedAmount).toBe('6');
  });

  it('reverses an execution: nothing stays captured', async () => {
    const { adapter, store } = simulator();
    const reference = await adapter.createPayment({ operation: 'PAY', amount: eur('10.00') });
    await adapter.decide(reference, 'approve');
    await adapter.execute(reference, 'PAY', eur('10.00'));
    await adapter.reverse(reference);
    expect(await store.find(reference)).toMatchObject({ status: 'VOIDED', capturedAmount: '0' });
    expect(await adapter.refund(reference, 'r1', eur('1.00'))).toMatchObject({ approved: false });
  });

  it('captures an authorisation in parts up to the authorised amount, one capture per key, and refunds what was captured', async () => {
    const { adapter, store } = simulator();
    const reference = await authorized(adapter, '30.00');
    expect(await adapter.refund(reference, 'r0', eur('1.00'))).toMatchObject({ approved: false, providerCode: 'NOTHING_CAPTURED' });

    const first = await adapter.capture(reference, 'c1', eur('20.00'));
    expect(first).toMatchObject({ approved: true, gatewayCode: 'APPROVED', providerCode: 'CAPTURED' });
    expect(first.reference).toMatch(/^PAC-[0-9A-F]{20}$/);
    expect(await store.find(reference)).toMatchObject({ status: 'CAPTURED', amount: '30.00', capturedAmount: '20' });
    // The same capture again, or at once: the first answer, nothing more captured.
    expect(await adapter.capture(reference, 'c1', eur('20.00'))).toEqual(first);
    const [one, other] = await Promise.all([adapter.capture(reference, 'c2', eur('5.00')), adapter.capture(reference, 'c2', eur('5.00'))]);
    expect(other).toEqual(one);
    expect((await store.find(reference))!.capturedAmount).toBe('25');

    const beyond = await adapter.capture(reference, 'c3', eur('5.01'));
    expect(beyond).toEqual({ approved: false, gatewayCode: 'DECLINED', providerCode: 'CAPTURE_EXCEEDS_AUTHORIZED_AMOUNT' });
    expect(await adapter.capture(reference, 'c3', eur('5.01'))).toEqual(beyond);
    expect(await adapter.capture(reference, 'c4', eur('5.00'))).toMatchObject({ approved: true });
    expect((await store.find(reference))!.capturedAmount).toBe('30');

    // What was captured can be refunded, no more; the capture made the authorisation's execution no less done.
    expect(await adapter.refund(reference, 'r1', eur('30.01'))).toMatchObject({ providerCode: 'REFUND_EXCEEDS_CAPTURED_AMOUNT' });
    expect(await adapter.refund(reference, 'r2', eur('30.00'))).toMatchObject({ approved: true });
    expect(await adapter.execute(reference, 'AUTHORIZE', eur('30.00'))).toMatchObject({ approved: true });
  });

  it('refuses a capture key used again for another amount, moving nothing, and the first capture stands', async () => {
    const { adapter, store } = simulator();
    const reference = await authorized(adapter, '30.00');
    const first = await adapter.capture(reference, 'c1', eur('10.00'));
    expect(await adapter.capture(reference, 'c1', eur('12.00'))).toEqual({
      approved: false,
      gatewayCode: 'DECLINED',
      providerCode: 'CAPTURE_ID_REUSED',
      captureKeyUsedFor: eur('10.00'),
    });
    expect((await store.find(reference))!.capturedAmount).toBe('10');
    expect(await adapter.capture(reference, 'c1', eur('10.00'))).toEqual(first);
  });

  it('captures nothing of a PAY, of a payment not authorised, or of a voided authorisation', async () => {
    const { adapter, store } = simulator();
    const paid = await captured(adapter, '10.00');
    expect(await adapter.capture(paid, 'c1', eur('1.00'))).toMatchObject({ approved: false, providerCode: 'NOT_AUTHORIZED' });
    const approvedOnly = await adapter.createPayment({ operation: 'AUTHORIZE', amount: eur('10.00') });
    await adapter.decide(approvedOnly, 'approve');
    expect(await adapter.capture(approvedOnly, 'c1', eur('1.00'))).toMatchObject({ approved: false, providerCode: 'NOT_AUTHORIZED' });
    const voided = await authorized(adapter, '10.00');
    await adapter.voidAuthorization(voided);
    expect(await adapter.capture(voided, 'c1', eur('1.00'))).toMatchObject({ approved: false, providerCode: 'NOT_AUTHORIZED' });
    expect(await store.find(voided)).toMatchObject({ status: 'VOIDED', capturedAmount: '0' });
  });

  it('voids an authorisation nothing was captured of, answers a repeat as voided, and declines once something was captured', async () => {
    const { adapter, store } = simulator();
    const reference = await authorized(adapter, '30.00');
    expect(await adapter.voidAuthorization(reference)).toEqual({ approved: true, gatewayCode: 'APPROVED', providerCode: 'VOIDED' });
    expect(await adapter.voidAuthorization(reference)).toEqual({ approved: true, gatewayCode: 'APPROVED', providerCode: 'VOIDED' });
    expect(await store.find(reference)).toMatchObject({ status: 'VOIDED' });

    const partly = await authorized(adapter, '30.00');
    await adapter.capture(partly, 'c1', eur('1.00'));
    expect(await adapter.voidAuthorization(partly)).toMatchObject({ approved: false, providerCode: 'ALREADY_CAPTURED' });
    // Nor does a reversal (for an execution the ledger refused) take back what a capture moved.
    await adapter.reverse(partly);
    expect(await store.find(partly)).toMatchObject({ status: 'CAPTURED', capturedAmount: '1' });

    const paid = await captured(adapter, '10.00');
    expect(await adapter.voidAuthorization(paid)).toMatchObject({ approved: false, providerCode: 'ALREADY_CAPTURED' });
    expect(await store.find(paid)).toMatchObject({ status: 'CAPTURED' });
  });

  it('reports provider_c\'s payer bank account masked, and nothing for provider_b', async () => {
    for (const [provider, payer] of [
      ['provider_c', { bankAccountHolder: 'Simulated Payer', bic: 'SIMUDEFFXXX', country: 'DEU', iban: 'xxxxxxxxxxxxxxxxxx3000' }],
      ['provider_b', undefined],
    ] as const) {
      const { adapter } = simulator(provider);
      const reference = await adapter.createPayment({ operation: 'PAY', amount: eur('1.00') });
      await adapter.decide(reference, 'approve');
      expect((await adapter.payerReturned(reference)).payer).toEqual(payer);
    }
  });
});
