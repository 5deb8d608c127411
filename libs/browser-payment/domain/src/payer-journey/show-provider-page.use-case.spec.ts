import { PayerPage } from '@gateway/contracts';
import { browserPaymentTestBed, initiatedPayment, interruptedCompletion, payerStep, testMerchant } from '../testing/browser-payment-test-bed';
import { RecordPayerDecision } from './record-payer-decision.use-case';
import { ShowProviderPage } from './show-provider-page.use-case';

function setUp() {
  const bed = browserPaymentTestBed();
  return { bed, show: new ShowProviderPage(bed.journeys, bed.providers, bed.steps) };
}

describe('ShowProviderPage (GET /bpui/<provider>/out/BP-...)', () => {
  it('marks the payment REDIRECTED_TO_PROVIDER in the ledger once and shows the simulator\'s page', async () => {
    const { bed, show } = setUp();
    const { provider, token, merchant } = await initiatedPayment(bed);
    bed.clock.advance(1_500);

    const page = (await show.execute(payerStep(merchant, provider, token))) as PayerPage;
    expect(page).toMatchObject({ kind: 'page', status: 200 });
    expect(page.html).toContain('Provider A wallet');
    expect(page.html).toContain('Book shop');
    expect(page.html).toContain('20.00 EUR');
    expect(page.html).toContain(`action="/bpui/provider_a/out/${token}/approve"`);
    expect(page.html).toContain(`action="/bpui/provider_a/out/${token}/cancel"`);
    const [, redirected] = bed.ledger.recorded;
    expect(redirected).toMatchObject({ apiOperation: 'BROWSER_PAYMENT_REDIRECTED', mode: 'UPDATE', orderChanged: false });
    expect(redirected.response).toMatchObject({
      browserPayment: { interaction: { status: 'REDIRECTED_TO_PROVIDER', timeInitiated: '2031-05-04T10:00:00.000Z', timeRedirected: '2031-05-04T10:00:01.500Z' } },
    });
    expect(redirected.response.browserPayment).not.toHaveProperty('redirectUrl');

    // A reload shows the page again and records nothing more.
    await show.execute(payerStep(merchant, provider, token));
    expect(bed.ledger.recorded).toHaveLength(2);
  });

  it('after the decision, a reload of the page links back to the gateway\'s in URL, never straight to the merchant', async () => {
    const { bed, show } = setUp();
    const { provider, token, merchant } = await initiatedPayment(bed);
    const step = payerStep(merchant, provider, token);
    await show.execute(step);
    await new RecordPayerDecision(bed.journeys, bed.providers).execute({ requestId: 'r', provider, token, decision: 'approve' });

    const page = (await show.execute(step)) as PayerPage;
    expect(page).toMatchObject({ kind: 'page', status: 200 });
    expect(page.html).toContain('You approved this payment.');
    // The return is where the gateway learns the outcome: a link to returnUrl would leave the payment pending.
    expect(page.html).toContain(`href="https://pay.gateway.test/bpui/provider_a/in/${token}"`);
    expect(page.html).not.toContain('shop.example');
  });

  it('shows nothing and changes nothing once the token expired', async () => {
    const { bed, show } = setUp();
    const { provider, token, merchant } = await initiatedPayment(bed);
    bed.clock.advance(60_000);
    expect(await show.execute(payerStep(merchant, provider, token))).toMatchObject({ kind: 'page', status: 410 });
    expect(bed.payments.only().interactionStatus).toBe('INITIATED');
    expect(bed.ledger.recorded).toHaveLength(1);
  });

  it('does not move a payment for a merchant other than the one the edge locked for', async () => {
    const { bed, show } = setUp();
    const { provider, token } = await initiatedPayment(bed);
    const other = { ...testMerchant(), id: 'OTHERSHOP' };
    expect(await show.execute(payerStep(other, provider, token))).toMatchObject({ kind: 'page', status: 404 });
    expect(bed.payments.only().interactionStatus).toBe('INITIATED');
  });

  it('does not open the payment under another provider\'s path: the token looks unknown there', async () => {
    const { bed, show } = setUp();
    const { provider, token, merchant } = await initiatedPayment(bed);
    expect(provider).toBe('provider_a');
    expect(await show.execute(payerStep(merchant, 'provider_b', token))).toMatchObject({ kind: 'page', status: 404 });
    expect(bed.payments.only().interactionStatus).toBe('INITIATED');
    expect(bed.ledger.recorded).toHaveLength(1);
  });

  it('rolls the step back when the ledger refuses it, so a reload records it then', async () => {
    const { bed, show } = setUp();
    const { provider, token, merchant } = await initiatedPayment(bed);
    bed.ledger.failNextRecord = new Error('ledger unavailable') as never;
    await expect(show.execute(payerStep(merchant, provider, token))).rejects.toThrow('ledger unavailable');
    expect(bed.payments.only().interactionStatus).toBe('INITIATED');
    await show.execute(payerStep(merchant, provider, token));
    expect(bed.payments.only().interactionStatus).toBe('REDIRECTED_TO_PROVIDER');
  });

  it('answers "already used" once the payer is back, even while the return\'s completion is still due, and changes nothing', async () => {
    const { bed, show } = setUp();
    const { step } = await interruptedCompletion(bed);
    const before = bed.payments.only();
    const recorded = bed.ledger.recorded.length;

    const page = (await show.execute(step)) as PayerPage;
    expect(page).toMatchObject({ kind: 'page', status: 410 });
    expect(page.html).toContain('already been used');
    expect(bed.payments.only()).toEqual(before);
    expect(bed.ledger.recorded).toHaveLength(recorded);
  });
});
