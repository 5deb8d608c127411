/**
 * Rough cost of request validation per body (it runs on every request, at the edge and again
 * in the service): `node -r ./tools/scripts/register-ts.cjs tools/scripts/bench-request-validation.ts`.
 */
import { performance } from 'node:perf_hooks';
import { validateOrderOperationRequest } from '@gateway/contracts';

const card = { number: '5123450000000008', expiry: { month: '1', year: '39' }, securityCode: '100' };
const BODIES = {
  'minimal VERIFY': { apiOperation: 'VERIFY', order: { currency: 'USD' }, sourceOfFunds: { type: 'CARD', provided: { card } } },
  'VERIFY with billing, customer, shipping and AVS rules': {
    apiOperation: 'VERIFY',
    correlationId: 'c-123',
    order: { currency: 'USD', transactionFiltering: { avsResponseCodeRules: [{ action: 'REJECT', avsResponseCode: 'NO_MATCH' }] } },
    sourceOfFunds: { type: 'CARD', provided: { card: { ...card, nameOnCard: 'A Payer' } } },
    billing: { address: { street: '1 Main Street', city: 'Springfield', postcodeZip: '12345', country: 'USA', stateProvinceCode: 'IL' } },
    customer: { email: 'payer@example.com', firstName: 'A', lastName: 'Payer' },
    shipping: { address: { street: '1 Main Street', city: 'Springfield', country: 'USA' }, contact: { phone: '+1 217 555 0100' } },
  },
};

for (const [name, raw] of Object.entries(BODIES)) {
  const body = JSON.parse(JSON.stringify(raw)) as unknown;
  for (let i = 0; i < 20_000; i++) validateOrderOperationRequest('VERIFY', body);
  const rounds = 200_000;
  const started = performance.now();
  for (let i = 0; i < rounds; i++) validateOrderOperationRequest('VERIFY', body);
  const micros = ((performance.now() - started) * 1000) / rounds;
  process.stdout.write(`${name}: ${micros.toFixed(2)} µs per body (${Math.round(1e6 / micros).toLocaleString('en')} bodies/s on one core)\n`);
}
