import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import { MerchantContext, usableAvsRules } from '@gateway/contracts';
import { MerchantEntity, MerchantRepository } from '@gateway/edge/data-access';
import { APP_LOGGER, AppLogger } from '@gateway/platform';

export const MERCHANT_DIRECTORY_OPTIONS = Symbol('MERCHANT_DIRECTORY_OPTIONS');

export interface MerchantDirectoryOptions {
  /**
   * How long a looked-up profile is reused. A change of the merchant drops it sooner, when the
   * database notifies it (`forget`); this bounds what a notification missed leaves stale.
   */
  cacheTtlMs: number;
  /** Least time between two reads of one merchant for `storedSince` (a refused password): 1 s unless a test says. */
  rereadIntervalMs?: number;
}

const REREAD_INTERVAL_MS = 1_000;

interface Cached {
  merchant: MerchantEntity | null;
  /** When the read that gave `merchant` (or will give `pending`) was sent to the database. */
  readAt: number;
  expiresAt: number;
  pending?: Promise<MerchantEntity | null>;
}

/** The next read of a merchant for `storedSince`, shared by every refusal it answers. */
interface Reread {
  startsAt: number;
  merchant: Promise<MerchantEntity | null>;
}

/**
 * Merchant profiles for the request path. Every request needs its merchant; reading Postgres
 * each time would cost a round trip per request, so profiles (and "no such merchant") are
 * kept for a few seconds, and concurrent lookups of one merchant share one query. A changed
 * merchant's profile is dropped when the database says so (MerchantChangesListener), and the
 * whole cache whenever such news may have been missed
 * (docs/decisions/merchant-cache-invalidation.md).
 */
@Injectable()
export class MerchantDirectory {
  private readonly cache = new Map<string, Cached>();
  private readonly rereads = new Map<string, Reread>();
  /** Profiles whose unusable AVS rules were reported, by content: once per process, not per load. */
  private readonly reported = new Set<string>();

  constructor(
    private readonly merchants: MerchantRepository,
    @Inject(MERCHANT_DIRECTORY_OPTIONS) private readonly options: MerchantDirectoryOptions,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  async find(id: string): Promise<MerchantEntity | null> {
    const cached = this.cache.get(id);
    if (cached && cached.expiresAt > Date.now()) {
      return cached.pending ?? cached.merchant;
    }
    return this.load(id);
  }

  /**
   * The profile as the database held it at `since` or later, for a password `find`'s answer
   * refused: a cached profile may predate a rotation (or the merchant's creation) by up to the
   * cache's TTL, and the merchant switching to its new password at once must not be counted
   * as guessing (docs/decisions/authentication-throttling.md, amendment 2026-11-26 (2)).
   * The cached profile if it was read since; else one read, shared by every refusal waiting for
   * it and started no sooner than `rereadIntervalMs` after the merchant's previous read, so
   * wrong passwords cost at most one database read per merchant per interval and replica,
   * however many are sent: a refusal arriving sooner waits for it (at most the interval).
   */
  async storedSince(id: string, since: number): Promise<MerchantEntity | null> {
    const cached = this.cache.get(id);
    if (cached && cached.readAt >= since) {
      return cached.pending ?? cached.merchant;
    }
    const scheduled = this.rereads.get(id);
    if (scheduled && scheduled.startsAt >= since) {
      return scheduled.merchant;
    }
    const interval = this.options.rereadIntervalMs ?? REREAD_INTERVAL_MS;
    const previous = Math.max(cached?.readAt ?? -Infinity, scheduled?.startsAt ?? -Infinity);
    const reread = this.rereadAt(id, Math.max(Date.now(), previous + interval));
    this.rereads.set(id, reread);
    return reread.merchant;
  }

  /**
   * Stores a password's re-hash under the current pepper in place of the hash it verified
   * against, unless that hash changed meanwhile (MerchantRepository.replacePasswordHash); the
   * cached profile is dropped, so the next request reads the new hash instead of re-hashing again.
   */
  async replacePasswordHash(id: string, which: 'passwordHash' | 'previousPasswordHash', verified: string, rehashed: string): Promise<boolean> {
    const replaced = await this.merchants.replacePasswordHash(id, which, verified, rehashed);
    this.forget(id);
    return replaced;
  }

  /**
   * The merchant changed: its next lookup reads the database. A read already under way may have
   * seen the profile before the change; its answer is not kept (`remember`).
   */
  forget(id: string): void {
    this.cache.delete(id);
  }

  /** Changes may have been missed (no notification while the database connection was away): every profile is read again. */
  forgetAll(): void {
    this.cache.clear();
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

  private async load(id: string): Promise<MerchantEntity | null> {
    const readAt = Date.now();
    const pending = this.merchants.findById(id);
    this.cache.set(id, { merchant: null, readAt, expiresAt: readAt + this.options.cacheTtlMs, pending });
    try {
      const merchant = await pending;
      this.reportUnusableAvsRules(merchant);
      this.remember(id, merchant, readAt, pending);
      return merchant;
    } catch (err) {
      if (this.cache.get(id)?.pending === pending) {
        this.cache.delete(id);
      }
      throw err;
    }
  }

  /** A read at `startsAt` that refreshes the cache; forgotten once done, so a later refusal schedules the next. */
  private rereadAt(id: string, startsAt: number): Reread {
    const reread: Reread = {
      startsAt,
      merchant: sleep(Math.max(0, startsAt - Date.now()))
        .then(() => this.load(id))
        .finally(() => {
          if (this.rereads.get(id) === reread) {
            this.rereads.delete(id);
          }
        }),
    };
    return reread;
  }

  private remember(id: string, merchant: MerchantEntity | null, readAt: number, pending: Promise<MerchantEntity | null>): void {
    if (this.cache.get(id)?.pending !== pending) {
      // A later read (a re-read, or a lookup after expiry) started meanwhile, and its answer is the
      // newer one; or the entry was forgotten, the merchant changed, and this answer may predate it.
      return;
    }
    if (this.cache.size > 50_000) {
      this.cache.clear();
    }
    this.cache.set(id, { merchant, readAt, expiresAt: Date.now() + this.options.cacheTtlMs });
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
