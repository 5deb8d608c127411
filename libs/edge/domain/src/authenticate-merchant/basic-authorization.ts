// RFC 7235 credentials: the scheme in any case, then one or more spaces (1*SP) before the token.
const BASIC = /^Basic +([A-Za-z0-9+/=]{4,1024})$/i;
const USER = /^merchant\.([0-9A-Za-z_-]{1,40})$/;

export interface BasicCredentials {
  merchantId: string;
  password: string;
}

/** `Authorization: Basic base64(merchant.<merchantId>:<password>)`, or null when it is not that. */
export function parseBasicAuthorization(header: string | undefined): BasicCredentials | null {
  const match = header ? BASIC.exec(header.trim()) : null;
  if (!match) {
    return null;
  }
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) {
    return null;
  }
  const user = USER.exec(decoded.slice(0, colon));
  const password = decoded.slice(colon + 1);
  return user && password ? { merchantId: user[1], password } : null;
}
