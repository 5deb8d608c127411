import { VERIFY_WIRE } from '@gateway/acquirer';
import { GatewayError, MerchantContext, validateTokenRequest } from '@gateway/contracts';
import { TEST_CARD, TEST_EXPIRY } from '@gateway/testing';
import { testEnvelope, testMerchant, vaultTestBed } from '../testing/vault-test-bed';

type Bed = Awaited<ReturnType<typeof vaultTestBed>>;

async function storeToken(bed: Bed, merchant: MerchantContext, body: Record<string, unknown>): Promise<string> {
  const saved = await bed.save.execute({ envelope: testEnvelope(merchant), fields: validateTokenRequest(body) });
  return saved.token as string;
}

const verifyRequest = (merchant: MerchantContext) =>
  VERIFY_WIRE.encodeRequest({ merchantId: merchant.id, orderId: 'order-1', transactionId: 'verify-1', currency: 'USD' });

describe('CallAcquirer', () => {
  it("verifies the token's card with the merchant's acquirer and records the token's use", async () => {
    const bed = await vaultTestBed();
    const merchant = testMerchant();
    const token = await storeToken(bed, merchant, { sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.DECLINED } } } });
    const reply = await bed.callAcquirer.execute({ merchant, operation: 'VERIFY', source: { token }, request: verifyRequest(merchant) });
    expect(VERIFY_WIRE.decodeResult(reply.result)).toMatchObject({ gatewayCode: 'DECLINED', result: 'FAILURE' });
    expect(reply.card.number).toBe('512345xxxxxx0008');
    const [row] = bed.store.rows.values();
    expect(row.lastUsedAt).toBeInstanceOf(Date);
    expect(await bed.metrics.registry.getSingleMetricAsString('gateway_acquirer_requests_total')).toContain('outcome="DECLINED"} 1');
  });

  it('answers the acquirer result even when the use of the token cannot be recorded', async () => {
    const bed = await vaultTestBed();
    const merchant = testMerchant();
    const token = await storeToken(bed, merchant, { sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } } });
    jest.spyOn(bed.store, 'markUsed').mockRejectedValue(new Error('connection terminated'));
    const reply = await bed.callAcquirer.execute({ merchant, operation: 'VERIFY', source: { token }, request: verifyRequest(merchant) });
    expect(reply.result).toMatchObject({ gatewayCode: 'APPROVED' });
  });

  it('refuses a token that holds a provider_a billing agreement, not a card', async () => {
    const bed = await vaultTestBed();
    const merchant = testMerchant();
    const token = await storeToken(bed, merchant, {
      sourceOfFunds: { type: 'PROVIDER_A', provided: { provider_a: { billingAgreement: { id: 'BA-1', cardinality: 'MULTIPLE' } } } },
    });
    const error = await bed.callAcquirer.execute({ merchant, operation: 'VERIFY', source: { token }, request: verifyRequest(merchant) }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ field: 'sourceOfFunds.token', explanation: `Value '${token}' is invalid. The token does not hold a card.` });
  });
});
