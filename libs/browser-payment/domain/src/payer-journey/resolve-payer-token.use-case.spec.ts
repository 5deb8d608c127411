import { browserPaymentTestBed, initiatedPayment, payerStep } from '../testing/browser-payment-test-bed';
import { RecordPayerDecision } from './record-payer-decision.use-case';
import { ResolvePayerToken } from './resolve-payer-token.use-case';
import { ReturnFromProvider } from './return-from-provider.use-case';
import { ShowProviderPage } from './show-provider-page.use-case';

describe('ResolvePayerToken (the edge asks which order to lock)', () => {
  /** A journey over: the payer went to the provider, cancelled, and came back. */
  async function endedJourney() {
    const bed = browserPaymentTestBed();
    const { provider, token, merchant } = await initiatedPayment(bed);
    const step = payerStep(merchant, provider, token);
    await new ShowProviderPage(bed.journeys, bed.providers, bed.steps).execute(step);
    await new RecordPayerDecision(bed.journeys, bed.providers).execute({ requestId: 'r', provider, token, decision: 'cancel' });
    await new ReturnFromProvider(bed.journeys, bed.providers, bed.steps).execute(step);
    return { resolve: new ResolvePayerToken(bed.journeys), provider, token, merchant };
  }

  it('answers the order of an ended journey\'s return, to be sent on to the merchant under the lock', async () => {
    const { resolve, provider, token, merchant } = await endedJourney();
    expect(await resolve.execute({ requestId: 'r', provider, token, returning: true })).toEqual({ kind: 'order', merchantId: merchant.id, orderId: 'order-1' });
  });

  it('answers the out URL of an ended journey with its page at once: no lock, nothing forwarded', async () => {
    const { resolve, provider, token } = await endedJourney();
    expect(await resolve.execute({ requestId: 'r', provider, token })).toMatchObject({ kind: 'page', status: 410 });
  });
});
