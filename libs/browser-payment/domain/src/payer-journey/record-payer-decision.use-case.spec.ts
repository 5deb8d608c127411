import { browserPaymentTestBed, initiatedPayment, interruptedCompletion, payerStep } from '../testing/browser-payment-test-bed';
import { RecordPayerDecision } from './record-payer-decision.use-case';
import { ReturnFromProvider } from './return-from-provider.use-case';
import { ShowProviderPage } from './show-provider-page.use-case';

describe('RecordPayerDecision (POST /bpui/<provider>/out/BP-.../approve|cancel)', () => {
  it('takes the decision at the provider only, once, and sends the payer to the gateway\'s return address', async () => {
    const bed = browserPaymentTestBed();
    const { provider, token, merchant } = await initiatedPayment(bed);
    await new ShowProviderPage(bed.journeys, bed.providers, bed.steps).execute(payerStep(merchant, provider, token));
    const decide = new RecordPayerDecision(bed.journeys, bed.providers);

    const reply = await decide.execute({ requestId: 'r', provider, token, decision: 'approve' });
    expect(reply).toEqual({ kind: 'redirect', location: `https://pay.gateway.test/bpui/provider_a/in/${token}` });
    const reference = bed.payments.only().providerReference;
    expect(bed.simulator.rows.get(reference)!.status).toBe('APPROVED');
    // The gateway's view of the payment and the ledger have not moved: that happens on return.
    expect(bed.payments.only().interactionStatus).toBe('REDIRECTED_TO_PROVIDER');
    expect(bed.ledger.recorded).toHaveLength(2);

    await decide.execute({ requestId: 'r', provider, token, decision: 'cancel' });
    expect(bed.simulator.rows.get(reference)!.status).toBe('APPROVED');
  });

  it('a decision after the payer is back (the button submitted twice) moves nothing and sends the browser to the return again', async () => {
    const bed = browserPaymentTestBed();
    const { provider, token, merchant } = await initiatedPayment(bed);
    const step = payerStep(merchant, provider, token);
    await new ShowProviderPage(bed.journeys, bed.providers, bed.steps).execute(step);
    const decide = new RecordPayerDecision(bed.journeys, bed.providers);
    await decide.execute({ requestId: 'r', provider, token, decision: 'cancel' });
    await new ReturnFromProvider(bed.journeys, bed.providers, bed.steps).execute(step);
    const before = bed.payments.only();

    const reply = await decide.execute({ requestId: 'r', provider, token, decision: 'approve' });
    expect(reply).toEqual({ kind: 'redirect', location: `https://pay.gateway.test/bpui/provider_a/in/${token}` });
    expect(bed.simulator.rows.get(before.providerReference)!.status).toBe('CANCELLED');
    expect(bed.payments.only()).toEqual(before);
  });

  it('refuses a decision for a payer never sent to the provider page', async () => {
    const bed = browserPaymentTestBed();
    const { provider, token } = await initiatedPayment(bed);
    const reply = await new RecordPayerDecision(bed.journeys, bed.providers).execute({ requestId: 'r', provider, token, decision: 'approve' });
    expect(reply).toMatchObject({ kind: 'page', status: 410 });
    // Nothing was used: the page says the payment was not started here, not "already used".
    const text = reply.kind === 'page' ? reply.html : '';
    expect(text).toContain('Payment not started');
    expect(text).toContain('not started from this link');
    expect(text).not.toContain('already');
    expect(bed.simulator.rows.get(bed.payments.only().providerReference)!.status).toBe('CREATED');
  });

  it('a decision after a return whose completion was interrupted sends the browser to the return, which completes it', async () => {
    const bed = browserPaymentTestBed();
    const { provider, token, step } = await interruptedCompletion(bed);
    const before = bed.payments.only();
    // The execution took place at the provider; its record is what failed.
    const atProvider = { ...bed.simulator.rows.get(before.providerReference)! };

    const reply = await new RecordPayerDecision(bed.journeys, bed.providers).execute({ requestId: 'r', provider, token, decision: 'cancel' });
    expect(reply).toEqual({ kind: 'redirect', location: `https://pay.gateway.test/bpui/provider_a/in/${token}` });
    expect(bed.payments.only()).toEqual(before);
    expect(bed.simulator.rows.get(before.providerReference)).toEqual(atProvider);
    await new ReturnFromProvider(bed.journeys, bed.providers, bed.steps).execute(step);
    expect(bed.payments.only()).toMatchObject({ interactionStatus: 'COMPLETED', result: 'SUCCESS' });
  });
});
