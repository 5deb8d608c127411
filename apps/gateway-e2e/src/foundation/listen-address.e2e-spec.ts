import { readFileSync } from 'node:fs';
import { readState } from '../support/e2e-state';

/**
 * Where the gateway listens. The standalone gateway (a demo merchant whose password it prints,
 * webhooks to private addresses allowed) is for this machine: on the loopback address unless
 * HTTP_HOST says otherwise (the run sets none for it). The distributed apps listen where
 * HTTP_HOST says (the run's 127.0.0.1; every interface by default, as a pod must for its
 * Service). Read from the kernel's table of listening TCP sockets.
 */
describe('the address the gateway listens on', () => {
  const state = readState();
  const port = Number(new URL(state.baseUrl).port);

  /** The local IPv4 addresses listening on `port` (/proc/net/tcp: hex address:port, state 0A). */
  function listeningAddresses(): string[] {
    return readFileSync('/proc/net/tcp', 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields[3] === '0A' && parseInt(fields[1]?.split(':')[1] ?? '', 16) === port)
      .map((fields) => {
        const hex = fields[1].split(':')[0];
        return [6, 4, 2, 0].map((i) => parseInt(hex.slice(i, i + 2), 16)).join('.');
      });
  }

  it(state.profile === 'standalone' ? 'is the loopback address alone by default (standalone)' : "is the edge's HTTP_HOST (distributed)", () => {
    if (state.profile === 'standalone') {
      // The run leaves HTTP_HOST unset for it: what is read is the default.
      expect(state.appEnv.gateway.HTTP_HOST).toBeUndefined();
      expect(listeningAddresses()).toEqual(['127.0.0.1']);
    } else {
      expect(listeningAddresses()).toEqual([state.appEnv['api-edge'].HTTP_HOST]);
    }
  });
});
