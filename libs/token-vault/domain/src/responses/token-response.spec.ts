import { Pan } from '@gateway/crypto';
import { TEST_CARD } from '@gateway/testing';
import type { TokenRecord } from '@gateway/token-vault/data-access';
import { CardExpiry } from '../cards/card-expiry';
import { failedSaveBody, tokenBody } from './token-response';

const CARD = TEST_CARD;

function cardRecord(overrides: Partial<TokenRecord> = {}): TokenRecord {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    repositoryId: 'Test1000',
    token: 'tok-1',
    status: 'VALID',
    sourceType: 'CARD',
    verificationStrategy: 'NONE',
    dataKeyId: 1,
    accountIdentifier: Buffer.alloc(0),
    fingerprint: Buffer.alloc(32),
    uniqueAccount: false,
    cardNumberMasked: '512345xxxxxx0008',
    cardExpiry: '0539',
    cardBrand: 'MASTERCARD',
    cardScheme: 'MASTERCARD',
    cardFundingMethod: 'CREDIT',
    providerAAgreement: null,
    providerADetails: null,
    schemeTokenOutcome: null,
    schemeTokenReference: null,
    schemeToken: null,
    createdBy: 'M1',
    updatedBy: 'M1',
    createdAt: new Date('2026-11-27T01:00:00.000Z'),
    updatedAt: new Date('2026-11-27T01:00:00.000Z'),
    lastUsedAt: null,
    version: 1,
    ...overrides,
  };
}

/** The serialised bodies pin the fields present and their order: what the edge sends back as the response. */
describe('token responses', () => {
  const now = new Date('2026-11-27T02:00:00.000Z');

  it('leave out what is absent and keep the fields in their order (a saved card token)', () => {
    const body = tokenBody(cardRecord(), { result: 'SUCCESS', gatewayCode: 'BASIC_VERIFICATION_SUCCESSFUL', echo: { customer: { email: 'a@example.com' } }, now });
    expect(JSON.stringify(body)).toBe(
      '{"customer":{"email":"a@example.com"},"repositoryId":"Test1000","token":"tok-1","status":"VALID","verificationStrategy":"NONE",' +
        '"usage":{"lastUpdated":"2026-11-27T01:00:00.000Z","lastUpdatedBy":"M1"},' +
        '"sourceOfFunds":{"type":"CARD","provided":{"card":{"brand":"MASTERCARD","scheme":"MASTERCARD","fundingMethod":"CREDIT","expiry":"0539","number":"512345xxxxxx0008"}}},' +
        '"response":{"gatewayCode":"BASIC_VERIFICATION_SUCCESSFUL"},"result":"SUCCESS"}',
    );
  });

  it('leave out what is absent on a retrieval of a used token without expiry', () => {
    const body = tokenBody(cardRecord({ cardExpiry: null, lastUsedAt: new Date('2026-11-27T01:30:00.000Z') }), { result: 'SUCCESS', now });
    expect(JSON.stringify(body)).toBe(
      '{"repositoryId":"Test1000","token":"tok-1","status":"VALID","verificationStrategy":"NONE",' +
        '"usage":{"lastUpdated":"2026-11-27T01:00:00.000Z","lastUpdatedBy":"M1","lastUsed":"2026-11-27T01:30:00.000Z"},' +
        '"sourceOfFunds":{"type":"CARD","provided":{"card":{"brand":"MASTERCARD","scheme":"MASTERCARD","fundingMethod":"CREDIT","number":"512345xxxxxx0008"}}},' +
        '"result":"SUCCESS"}',
    );
  });

  it('leave out what is absent in a failed save', () => {
    const card = { type: 'CARD' as const, pan: Pan.of(CARD), expiry: CardExpiry.fromMmyy('0539') };
    const body = failedSaveBody({ repositoryId: 'Test1000', verificationStrategy: 'ACQUIRER', gatewayCode: 'DECLINED', card });
    expect(Object.keys(body)).toEqual(['repositoryId', 'verificationStrategy', 'sourceOfFunds', 'response', 'result']);
    expect(JSON.stringify(body)).not.toContain(CARD);
  });
});
