import { EdgeConfig } from '@gateway/edge/feature';
import { loadConfig } from '@gateway/platform';

/**
 * The standalone profile's settings with PUBLIC_BASE_URL (where payers' browsers reach the
 * gateway: browser payments' redirect URLs and the payer journey's redirects start with it)
 * as the operator set it, or else the address the one process itself serves on: https when
 * the edge serves TLS (TLS_CERT_FILE), the edge's HTTP_HOST (the loopback address when it binds
 * every interface) and HTTP_PORT. The fixed default `http://127.0.0.1:8080` of the
 * distributed profile's apps would send payers to a port nothing listens on once HTTP_PORT
 * changes. (With HTTP_PORT=0 the port is only known after binding: set PUBLIC_BASE_URL.)
 */
export function withStandalonePublicBaseUrl<T extends Record<string, string | undefined>>(env: T): T & { PUBLIC_BASE_URL: string } {
  // An empty value counts as unset, as loadConfig reads every variable.
  if (env.PUBLIC_BASE_URL) {
    return { ...env, PUBLIC_BASE_URL: env.PUBLIC_BASE_URL };
  }
  return { ...env, PUBLIC_BASE_URL: standalonePublicBaseUrl(loadConfig(EdgeConfig, env)) };
}

export function standalonePublicBaseUrl(edge: Pick<EdgeConfig, 'HTTP_HOST' | 'HTTP_PORT' | 'TLS_CERT_FILE'>): string {
  return `${edge.TLS_CERT_FILE ? 'https' : 'http'}://${reachableHost(edge.HTTP_HOST)}:${edge.HTTP_PORT}`;
}

const EVERY_INTERFACE = new Set(['', '0.0.0.0', '::', '[::]']);

function reachableHost(host: string): string {
  if (EVERY_INTERFACE.has(host)) {
    return '127.0.0.1';
  }
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
