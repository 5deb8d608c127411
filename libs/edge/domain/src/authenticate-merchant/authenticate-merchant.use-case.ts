import { Inject, Injectable } from '@nestjs/common';
import { AuthMethod, GatewayError, newSupportCode } from '@gateway/contracts';
import { verifyApiPassword } from '@gateway/crypto';
import { MerchantEntity } from '@gateway/edge/data-access';
import { APP_LOGGER, AppLogger } from '@gateway/platform';
import { MerchantDirectory } from '../merchants/merchant-directory';

export const API_PASSWORD_PEPPER = Symbol('API_PASSWORD_PEPPER');

export interface AuthenticatedMerchant {
  merchant: MerchantEntity;
  method: AuthMethod;
}

const DUMMY_HASH = 'h1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const BASIC = /^Basic ([A-Za-z0-9+/=]{4,1024})$/i;
const USER = /^merchant\.([0-9A-Za-z_-]{1,40})$/;

/**
 * HTTP Basic authentication as the spec defines it: user `merchant.<merchantId>`, password the
 * merchant's API password. Every way of getting it wrong (no header, malformed header,
 * unknown merchant, wrong password) is the same 401, so the answer reveals nothing. A
 * merchant that authenticates but is disabled is refused with 403.
 */
@Injectable()
export class AuthenticateMerchant {
  constructor(
    private readonly directory: MerchantDirectory,
    @Inject(API_PASSWORD_PEPPER) private readonly pepper: string,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  async execute(authorization: string | undefined): Promise<AuthenticatedMerchant> {
    const credentials = parseBasic(authorization);
    if (!credentials) {
      throw invalidCredentials();
    }
    const merchant = await this.directory.find(credentials.merchantId);
    if (!merchant) {
      // Same work as a wrong password, so timing does not tell which merchant ids exist.
      verifyApiPassword(credentials.password, DUMMY_HASH, this.pepper);
      throw invalidCredentials();
    }
    if (!this.passwordMatches(merchant, credentials.password)) {
      throw invalidCredentials();
    }
    if (merchant.status !== 'ENABLED') {
      const supportCode = newSupportCode();
      this.logger.warn({ supportCode, merchantId: merchant.id }, 'disabled merchant refused');
      throw new GatewayError('REQUEST_REJECTED', { supportCode });
    }
    return { merchant, method: 'PASSWORD' };
  }

  private passwordMatches(merchant: MerchantEntity, password: string): boolean {
    if (merchant.passwordHash && verifyApiPassword(password, merchant.passwordHash, this.pepper)) {
      return true;
    }
    return (
      merchant.previousPasswordHash !== null &&
      merchant.previousPasswordExpiresAt !== null &&
      merchant.previousPasswordExpiresAt.getTime() > Date.now() &&
      verifyApiPassword(password, merchant.previousPasswordHash, this.pepper)
    );
  }
}

export function invalidCredentials(): GatewayError {
  return new GatewayError('INVALID_CREDENTIALS', { explanation: 'Invalid credentials.' });
}

function parseBasic(header: string | undefined): { merchantId: string; password: string } | null {
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
