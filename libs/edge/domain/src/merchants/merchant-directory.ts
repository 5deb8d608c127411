import { Inject, Injectable } from '@nestjs/common';
import { MerchantContext, usableAvsRules } from '@gateway/contracts';
import { MerchantEntity, MerchantRepository } from '@gateway/edge/data-access';
import { APP_LOGGER, AppLogger } from '@gateway/platform';

export const MERCHANT_DIRECTORY_OPTIONS = Symbol('MERCHANT_DIRECTORY_OPTIONS');

export interface MerchantDirectoryOptions {
  /** How long a looked-up profile is reused; a disabled merchant or new password applies after at most this. */
  cacheTtlMs: number;
}

interface Cached {
  merchant: MerchantEntity | null;
  expiresAt: number;
  pending?: Promise<MerchantEntity | null>;
}

/**
 * Merchant profiles for the request path. Every request needs its merchant; reading Postgres
 * each time would cost a round trip per request, so profiles (and "no such merchant") are
 * kept for a few seconds, and concurrent lookups of one merchant share one query.
 */
@Injectable()
export class MerchantDirectory {
  private readonly cache = new Map<string, Cached>();
  /** Profiles whose unusable AVS rules were reported, by content: once per process, not per load. */
  private readonly reported = new Set<string>();

  constructor(
    private readonly merchants: MerchantRepository,
    @Inject(MERCHANT_DIRECTORY_OPTIONS) private readonly options: MerchantDirectoryOptions,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  async find(id: string): Promise<MerchantEntity | null> {
    const now = Date.now();
    const cached = this.cache.get(id);
    if (cached && cached.expiresAt > now) {
      return cached.pending ?? cached.merchant;
    }
    const pending = this.merchants.findById(id);
    this.cache.set(id, { merchant: null, expiresAt: now + this.options.cacheTtlMs, pending });
    try {
      const merchant = await pending;
      this.reportUnusableAvsRules(merchant);
      this.remember(id, merchant);
      return merchant;
    } catch (err) {
      this.cache.delete(id);
      throw err;
    }
  }

  /** After an admin change in this process; other replicas see it when their entry expires. */
  forget(id: string): void {
    this.cache.delete(id);
  }

  /**
   * A profile stored before its AVS rules were checked may name a code the acquirer never returns
   * or one code twice. Services leave such rules out (they never applied: checkedMerchantContext)
   * instead of refusing the merchant; the operator is told here, and fixes them with the admin CLI.
   */
  private reportUnusableAvsRules(merchant: MerchantEntity | null): void {
    const rules = merchant?.settings.transactionFiltering?.avsResponseCodeRules;
    if (!merchant || !Array.isArray(rules)) {
      return;
    }
    const { unusable } = usableAvsRules(rules);
    const key = `${merchant.id}:${JSON.stringify(rules)}`;
    if (unusable.length === 0 || this.reported.has(key)) {
      return;
    }
    if (this.reported.size > 10_000) {
      this.reported.clear();
    }
    this.reported.add(key);
    this.logger.warn(
      { merchantId: merchant.id, unusableAvsRules: unusable },
      `merchant profile has AVS rules that never apply (a code the acquirer never returns, or a code named twice: the first rule applies); ` +
        `they are ignored. Fix with: admin set ${merchant.id} transactionFiltering.avsResponseCodeRules=<rules, one per code>`,
    );
  }

  private remember(id: string, merchant: MerchantEntity | null): void {
    if (this.cache.size > 50_000) {
      this.cache.clear();
    }
    this.cache.set(id, { merchant, expiresAt: Date.now() + this.options.cacheTtlMs });
  }
}

/**
 * The profile slice services get in every envelope. Client certificate registrations stay at
 * the edge: no service needs them, and a long revocation list would ride on every message.
 */
export function toMerchantContext(merchant: MerchantEntity): MerchantContext {
  const { clientCertificates: _edgeOnly, ...settings } = merchant.settings;
  return { id: merchant.id, mode: merchant.mode, name: merchant.name, settings };
}
