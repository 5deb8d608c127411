import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { OperationReply, SealCardMessage, SealCardReply, SUBJECTS, TokenOperationMessage } from '@gateway/contracts';
import { maskPan } from '@gateway/crypto';
import { TEST_CARD } from '@gateway/testing';
import { EdgeTestApp, startEdgeTestApp, TestMerchantCredentials } from '../testing/edge-test-app';

const seals: SealCardMessage[] = [];
const tokens: TokenOperationMessage[] = [];

/**
 * Stands in for the vault's two subjects the edge uses here: it seals into an opaque value
 * (what the edge must keep instead of the card) and records token saves.
 */
@Controller()
class RecordingVault {
  @MessagePattern(SUBJECTS.tokenVault.sealCard)
  seal(@Payload() message: SealCardMessage): SealCardReply {
    seals.push(message);
    return {
      sealed: `opaque-${seals.length}`,
      card: message.card.number ? { number: maskPan(message.card.number) } : {},
      securityCodePresent: message.card.securityCode !== undefined,
    };
  }

  @MessagePattern(SUBJECTS.tokenVault.saveToken)
  save(@Payload() message: TokenOperationMessage): OperationReply {
    tokens.push(message);
    return { body: { result: 'SUCCESS', token: message.tokenId } };
  }
}

/**
 * The edge's side of sessions in the standalone profile (in-memory session store): every
 * update with card details goes to the vault with the session's previous sealed card, and a
 * token request naming the session is filled and carries the sealed card for the vault.
 */
describe('sessions at the edge (standalone profile)', () => {
  let edge: EdgeTestApp;
  let merchant: TestMerchantCredentials;

  beforeAll(async () => {
    edge = await startEdgeTestApp({ controllers: [RecordingVault] });
    merchant = await edge.createMerchant();
  });

  afterAll(async () => {
    await edge?.close();
  });

  const call = async (method: 'POST' | 'PUT' | 'GET', url: string, body?: object) => {
    const response = await edge.fastify.inject({
      method,
      url: `/api/rest/version/100/merchant/${merchant.id}${url}`,
      headers: { authorization: merchant.authorization, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { payload: JSON.stringify(body) } : {}),
    });
    return { status: response.statusCode, body: response.json() };
  };

  it('seals card details with the session\'s previous sealed card, bound to the session', async () => {
    const created = await call('POST', '/session', { sourceOfFunds: { provided: { card: { number: TEST_CARD } } } });
    expect(created.status).toBe(201);
    const id = created.body.session.id;
    expect(created.body.session.updateStatus).toBe('SUCCESS');
    await call('PUT', `/session/${id}`, { sourceOfFunds: { provided: { card: { expiry: { month: '5', year: '39' } } } } });

    expect(seals.slice(-2).map((s) => [s.bindingId, s.previous, s.card])).toEqual([
      [id, undefined, { number: TEST_CARD }],
      [id, 'opaque-1', { expiry: { month: '5', year: '39' } }],
    ]);
    // The masked card the vault answered last is what the session shows.
    expect((await call('GET', `/session/${id}`)).body.sourceOfFunds).toEqual({ type: 'CARD', provided: { card: {} } });
  });

  it('fills a token request from the session and passes the session\'s sealed card to the vault', async () => {
    const created = await call('POST', '/session', { sourceOfFunds: { provided: { card: { number: TEST_CARD } } }, billing: { address: { city: 'Oslo' } } });
    const id = created.body.session.id;
    const response = await call('PUT', '/token/9123456789012346', { session: { id } });
    expect(response.status).toBe(201);
    expect(tokens.at(-1)?.body).toEqual({ session: { id }, sourceOfFunds: { type: 'CARD' }, billing: { address: { city: 'Oslo' } } });
    expect(tokens.at(-1)?.session).toEqual({ id, sealedCard: `opaque-${seals.length}` });
  });
});
