import { AUTHORIZE_WIRE, PAY_WIRE, VERIFY_WIRE } from '@gateway/acquirer';
import { GatewayError, MerchantContext, validateTokenRequest } from '@gateway/contracts';
import { maskPan } from '@gateway/crypto';
import { Money } from '@gateway/money';
import { TEST_CARD, TEST_CARD_SECOND, TEST_EXPIRY } from '@gateway/testing';
import { testEnvelope, testMerchant, vaultTestBed } from '../testing/vault-test-bed';

type Bed = Awaited<ReturnType<typeof vaultTestBed>>;

async function storeToken(bed: Bed, merchant: MerchantContext, body: Record<string, unknown>): Promise<string> {
  const saved = await bed.save.execute({ envelope: testEnvelope(merchant), fields: validateTokenRequest(body) });
  return saved.token as string;
}

const verifyRequest = (merchant: MerchantContext) =>
  VERIFY_WIRE.encodeRequest({ merchantId: merchant.id, orderId: 'order-1', transactionId: 'verify-1', currency: 'USD' });

const paymentRequest = (merchant: MerchantContext, amount: string, acceptPartialAmount?: boolean) =>
  AUTHORIZE_WIRE.encodeRequest({
    merchantId: merchant.id,
    orderId: 'order-1',
    transactionId: 'pay-1',
    amount: Money.of(amount, 'USD'),
    ...(acceptPartialAmount !== undefined ? { acceptPartialAmount } : {}),
    cardholder: { billingAddress: { street: 'NO_MATCH' } },
  });

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
    // A Random token is 16 digits that pass Luhn: it reads as a card number, and is masked as one.
    expect(error).toMatchObject({ field: 'sourceOfFunds.token', explanation: `Value '${maskPan(token)}' is invalid. The token does not hold a card.` });
  });

  it('masks a card number given as the token in its refusal', async () => {
    const bed = await vaultTestBed();
    const merchant = testMerchant();
    const error = await bed.callAcquirer.execute({ merchant, operation: 'VERIFY', source: { token: TEST_CARD }, request: verifyRequest(merchant) }).catch((err: unknown) => err);
    expect(error).toMatchObject({ field: 'sourceOfFunds.token', explanation: "Value '512345xxxxxx0008' is invalid. There is no such token in repository Test1000000001." });
  });
  describe.each([
    ['AUTHORIZE', AUTHORIZE_WIRE],
    ['PAY', PAY_WIRE],
  ] as const)('%s', (operation, codec) => {
    it("sends the token's card to the acquirer, counted under the operation, and records the token's use", async () => {
      const bed = await vaultTestBed();
      const merchant = testMerchant();
      const token = await storeToken(bed, merchant, { sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } } });
      const reply = await bed.callAcquirer.execute({ merchant, operation, source: { token }, request: paymentRequest(merchant, '20.00') });
      const result = codec.decodeResult(reply.result);
      expect(result).toMatchObject({ gatewayCode: 'APPROVED', result: 'SUCCESS', avs: { gatewayCode: 'NO_MATCH' }, card: { maskedNumber: '512345xxxxxx0008' } });
      expect(result.approvedAmount.equals(Money.of('20', 'USD'))).toBe(true);
      expect(reply.card.number).toBe('512345xxxxxx0008');
      expect(JSON.stringify(reply)).not.toContain(TEST_CARD);
      expect([...bed.store.rows.values()][0].lastUsedAt).toBeInstanceOf(Date);
      expect(await bed.metrics.registry.getSingleMetricAsString('gateway_acquirer_requests_total')).toContain(`operation="${operation}",outcome="APPROVED"} 1`);
    });

    it('completes the card explicit > session > token, the session security code included', async () => {
      const bed = await vaultTestBed();
      const merchant = testMerchant();
      const token = await storeToken(bed, merchant, { sourceOfFunds: { type: 'CARD', provided: { card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } } } });
      const sealed = await bed.sealSessionCard.execute({ merchant, bindingId: 'SESSION0001', card: { expiry: TEST_EXPIRY.DECLINED, securityCode: '102' } });
      const source = { token, sealed: { value: sealed.sealed, bindingId: 'SESSION0001' } };

      const sessionOverToken = await bed.callAcquirer.execute({ merchant, operation, source, request: paymentRequest(merchant, '20.00') });
      expect(codec.decodeResult(sessionOverToken.result)).toMatchObject({ gatewayCode: 'DECLINED', cardSecurityCode: { gatewayCode: 'NO_MATCH' } });

      const explicitFirst = await bed.callAcquirer.execute({
        merchant,
        operation,
        source,
        explicit: { number: TEST_CARD_SECOND, expiry: TEST_EXPIRY.APPROVED, securityCode: '100' },
        request: paymentRequest(merchant, '20.00'),
      });
      expect(codec.decodeResult(explicitFirst.result)).toMatchObject({ gatewayCode: 'APPROVED', cardSecurityCode: { gatewayCode: 'MATCH' } });
      expect(explicitFirst.card.number).toBe('512345xxxxxx0016');
    });

    it('passes acceptPartialAmount on: a partial approval with a session card, INSUFFICIENT_FUNDS without it', async () => {
      const bed = await vaultTestBed();
      const merchant = testMerchant();
      const sealed = await bed.sealSessionCard.execute({ merchant, bindingId: 'SESSION0002', card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } });
      const source = { sealed: { value: sealed.sealed, bindingId: 'SESSION0002' } };
      const partial = codec.decodeResult((await bed.callAcquirer.execute({ merchant, operation, source, request: paymentRequest(merchant, '100.51', true) })).result);
      expect(partial.gatewayCode).toBe('PARTIALLY_APPROVED');
      expect(partial.approvedAmount.equals(Money.of('50.25', 'USD'))).toBe(true);
      expect(partial.requestedAmount.equals(Money.of('100.51', 'USD'))).toBe(true);
      const refused = codec.decodeResult((await bed.callAcquirer.execute({ merchant, operation, source, request: paymentRequest(merchant, '100.51') })).result);
      expect(refused.gatewayCode).toBe('INSUFFICIENT_FUNDS');
    });

    it('refuses a request whose card carries its number, before any acquirer call', async () => {
      const bed = await vaultTestBed();
      const merchant = testMerchant();
      const sealed = await bed.sealSessionCard.execute({ merchant, bindingId: 'SESSION0003', card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED } });
      const request = { ...paymentRequest(merchant, '1.00'), card: { number: TEST_CARD } };
      const error = await bed.callAcquirer
        .execute({ merchant, operation, source: { sealed: { value: sealed.sealed, bindingId: 'SESSION0003' } }, request })
        .catch((err: unknown) => err);
      expect(String(error)).toContain('request.card.number is not allowed here');
      expect(String(error)).not.toContain(TEST_CARD);
      expect(await bed.metrics.registry.getSingleMetricAsString('gateway_acquirer_requests_total')).not.toContain(`operation="${operation}"`);
    });
  });
});
