import { Secret } from '@gateway/crypto';
import { signNotification, verifyNotificationSignature } from './notification-signature';

describe('notification signatures', () => {
  const body = '{"order":{"amount":10,"id":"o-1"},"result":"SUCCESS"}';
  const id = '7a1e0f0e-8d2c-4a55-9d0e-2f3f6a3b9c11';
  const check = (header: string, overrides: Partial<Parameters<typeof verifyNotificationSignature>[1]> = {}) =>
    verifyNotificationSignature(header, { secret: 'current-secret', notificationId: id, body, nowSeconds: 1_700_000_030, toleranceSeconds: 300, ...overrides });

  it('verify with the secret, the id and the exact body within the tolerance', () => {
    const header = signNotification([new Secret('current-secret')], 1_700_000_000, id, body);
    expect(header).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
    expect(check(header)).toBe(true);
  });

  it('fail for another secret, another id, a changed body or an old timestamp', () => {
    const header = signNotification([new Secret('current-secret')], 1_700_000_000, id, body);
    expect(check(header, { secret: 'other' })).toBe(false);
    expect(check(header, { notificationId: 'another-id' })).toBe(false);
    expect(check(header, { body: body.replace('10', '11') })).toBe(false);
    expect(check(header, { nowSeconds: 1_700_000_000 + 301 })).toBe(false);
    // A timestamp too far ahead of the receiver's clock is refused like one too old.
    expect(check(header, { nowSeconds: 1_700_000_000 - 301 })).toBe(false);
    expect(check(header.replace('t=1700000000', 't=1700000020'))).toBe(false);
    expect(verifyNotificationSignature(undefined, { secret: 'current-secret', notificationId: id, body, nowSeconds: 1, toleranceSeconds: 1 })).toBe(false);
  });

  it('carry one signature per secret during a rotation, so either secret verifies', () => {
    const header = signNotification([new Secret('new-secret'), new Secret('current-secret')], 1_700_000_000, id, body);
    expect(header.split(',')).toHaveLength(3);
    expect(check(header)).toBe(true);
    expect(check(header, { secret: 'new-secret' })).toBe(true);
  });
});
