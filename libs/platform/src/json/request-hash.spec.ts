import { canonicalRequestHash } from './request-hash';

describe('canonicalRequestHash', () => {
  it('is the same for the same body in another key order and with another correlationId', () => {
    const a = canonicalRequestHash({ apiOperation: 'VERIFY', order: { currency: 'USD', amount: '1.00' }, correlationId: 'a' });
    const b = canonicalRequestHash({ order: { amount: '1.00', currency: 'USD' }, apiOperation: 'VERIFY', correlationId: 'b' });
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  it('differs when any value differs', () => {
    const a = canonicalRequestHash({ transaction: { amount: '10.00' } });
    const b = canonicalRequestHash({ transaction: { amount: '10.01' } });
    expect(a).not.toBe(b);
  });
});
