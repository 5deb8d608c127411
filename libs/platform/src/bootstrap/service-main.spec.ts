import { natsTls } from './service-main';

describe('natsTls: the TLS every NATS connection insists on', () => {
  it('is none for nats:// URLs without a CA file (the server decides)', () => {
    expect(natsTls(['nats://a:4222', 'nats://b:4222'], '')).toBeNull();
  });

  it('is required, verified against the system CAs, for a tls:// URL', () => {
    expect(natsTls(['tls://a:4222'], '')).toEqual({});
  });

  it('is required for every server once one URL is tls://, or a CA file is set', () => {
    expect(natsTls(['nats://a:4222', 'tls://b:4222'], '')).toEqual({});
    expect(natsTls(['nats://a:4222'], '/etc/gateway/nats-ca/ca.crt')).toEqual({ caFile: '/etc/gateway/nats-ca/ca.crt' });
  });
});
