import { natsTls } from './service-main';

const files = (caFile = '', certFile = '', keyFile = '') => ({ caFile, certFile, keyFile });

describe('natsTls: the TLS every NATS connection insists on', () => {
  it('is none for nats:// URLs without a CA file (the server decides)', () => {
    expect(natsTls(['nats://a:4222', 'nats://b:4222'], files())).toBeNull();
  });

  it('is required, verified against the system CAs, for a tls:// URL', () => {
    expect(natsTls(['tls://a:4222'], files())).toEqual({});
  });

  it('is required for every server once one URL is tls://, or a CA file is set', () => {
    expect(natsTls(['nats://a:4222', 'tls://b:4222'], files())).toEqual({});
    expect(natsTls(['nats://a:4222'], files('/etc/gateway/nats-ca/ca.crt'))).toEqual({ caFile: '/etc/gateway/nats-ca/ca.crt' });
  });

  it('is required, with the client certificate shown to servers that ask for one, once a certificate is set', () => {
    expect(natsTls(['nats://a:4222'], files('', '/etc/gateway/nats-client/tls.crt', '/etc/gateway/nats-client/tls.key'))).toEqual({
      certFile: '/etc/gateway/nats-client/tls.crt',
      keyFile: '/etc/gateway/nats-client/tls.key',
    });
    expect(natsTls(['tls://a:4222'], files('/ca.crt', '/tls.crt', '/tls.key'))).toEqual({ caFile: '/ca.crt', certFile: '/tls.crt', keyFile: '/tls.key' });
  });
});
