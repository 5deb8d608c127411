import { randomBytes, randomInt } from 'node:crypto';
import {
  ClientCertificateSettings,
  defaultMerchantSettings,
  GatewayError,
  MerchantMode,
  MerchantSettings,
  NotificationSecretSettings,
  usableAvsRules,
} from '@gateway/contracts';
import { ApiPasswordPeppers, generateApiPassword } from '@gateway/crypto';
import { MerchantEntity, MerchantRepository, MerchantStatus } from '@gateway/edge/data-access';
import { plainToInstance } from 'class-transformer';
import { NotificationSecretIssuer } from './notification-secrets';
import { PepperCensus, pepperCensus } from './api-password-peppers';
import { validateSync, ValidationError } from 'class-validator';

export interface NewMerchant {
  id?: string;
  name: string;
  mode: MerchantMode;
  settings?: Record<string, unknown>;
}

export interface IssuedCredentials {
  merchant: MerchantEntity;
  /** Shown once, to whoever provisioned the merchant; only its keyed hash is stored. */
  password: string;
  /** Issued with the profile when its notifications are enabled; shown once, stored sealed. */
  notificationSecret?: string;
}

export interface ConfiguredMerchant {
  merchant: MerchantEntity;
  /** Issued by this change (notifications just enabled); shown once, stored sealed. */
  notificationSecret?: string;
}

const MERCHANT_ID = /^[0-9A-Za-z_-]{1,40}$/;

/**
 * What the platform team does to merchant profiles (through the admin CLI): provision,
 * configure, enable or disable, and issue or rotate API passwords. Settings are validated as
 * a whole after every change, so a profile is never stored half-valid.
 */
export class ManageMerchants {
  constructor(
    private readonly merchants: MerchantRepository,
    /** New and rotated passwords are hashed under the current pepper. */
    private readonly peppers: ApiPasswordPeppers,
    /** Only the admin CLI, configured with WEBHOOK_SECRET_KEYS, issues notification secrets. */
    private readonly notificationSecrets?: NotificationSecretIssuer,
  ) {}

  async create(input: NewMerchant): Promise<IssuedCredentials> {
    const id = input.id ?? generateMerchantId(input.mode);
    if (!MERCHANT_ID.test(id)) {
      throw GatewayError.invalidRequest(`Merchant id '${id}' must be 1 to 40 characters from 0-9 a-z A-Z '-' '_'.`);
    }
    if (await this.merchants.findById(id)) {
      throw GatewayError.invalidRequest(`Merchant ${id} already exists.`);
    }
    // As configure refuses it: a secret given here was stored as the sealed one (none issued), a
    // secret no key opens, so every notification of the merchant failed.
    if (writesNotificationSecret('notifications', input.settings?.notifications)) {
      throw GatewayError.invalidRequest('The notification secret is not a setting: enabling notifications issues it.');
    }
    // A token repository of its own unless the settings name one: merchants share a repository
    // (and each other's tokens) only when configured to (docs/decisions/token-repository-per-merchant.md).
    const ownRepository = mergeDeep(defaultMerchantSettings(), { tokenRepository: { id: await this.unusedRepositoryId() } });
    const { settings, notificationSecret } = this.signedIfEnabled(id, validatedSettings(mergeDeep(ownRepository, input.settings ?? {})));
    const password = generateApiPassword();
    // One insert, the notification secret included: a profile with notifications enabled is
    // never stored without the secret that signs them, whatever stops the command.
    await this.merchants.insert({
      id,
      name: input.name,
      mode: input.mode,
      status: 'ENABLED',
      settings,
      passwordHash: this.peppers.hash(password),
      previousPasswordHash: null,
      previousPasswordExpiresAt: null,
    });
    return { merchant: await this.require(id), password, ...(notificationSecret ? { notificationSecret } : {}) };
  }

  list(): Promise<MerchantEntity[]> {
    return this.merchants.list();
  }

  async show(id: string): Promise<MerchantEntity> {
    return this.require(id);
  }

  /**
   * Applies `path -> value` changes (e.g. `privileges.excessiveRefund -> true`) to the settings,
   * in one update with the notification secret they call for (notifications just enabled).
   */
  async configure(id: string, changes: Record<string, unknown>): Promise<ConfiguredMerchant> {
    const merchant = await this.require(id);
    const changed = storedSettings(merchant) as unknown as Record<string, unknown>;
    for (const [path, value] of Object.entries(changes)) {
      if (writesNotificationSecret(path, value)) {
        throw GatewayError.invalidRequest(
          'The notification secret is not a setting: enabling notifications issues it, rotate-notification-secret replaces it.',
        );
      }
      setPath(changed, path, value);
    }
    // A whole `notifications` object written (`notifications={"enabled":true}`) keeps the issued
    // secret: dropping it issued a new one at once, a rotation without the previous secret's
    // window (and the end of one in progress), so every receiver refused the next notification.
    const secret = merchant.settings.notifications.secret;
    const notifications = changed.notifications;
    if (secret && typeof notifications === 'object' && notifications !== null && !Array.isArray(notifications)) {
      (notifications as Record<string, unknown>).secret = secret;
    }
    keepRevocations(id, merchant.settings.clientCertificates, changed, Object.keys(changes));
    const { settings, notificationSecret } = this.signedIfEnabled(id, validatedSettings(changed));
    await this.merchants.update(id, { settings });
    return { merchant: await this.require(id), ...(notificationSecret ? { notificationSecret } : {}) };
  }

  /**
   * Registers a client certificate for certificate authentication: by fingerprint (that
   * certificate only) or by subject (any certificate the trusted CA issues with it).
   */
  async addCertificate(id: string, registration: { fingerprint: string } | { subject: string }): Promise<MerchantEntity> {
    const current = (await this.require(id)).settings.clientCertificates ?? {};
    const [key, value] = 'fingerprint' in registration ? (['fingerprints', registration.fingerprint] as const) : (['subjects', registration.subject] as const);
    // Registered and revoked at once, it would stay refused while the command said it was
    // registered; a revocation is not undone by registering again: the merchant gets a new certificate.
    if (key === 'fingerprints' && (current.revokedFingerprints ?? []).includes(value)) {
      throw GatewayError.invalidRequest(`Certificate ${value} is revoked for merchant ${id}: a revoked certificate stays refused; register its replacement.`);
    }
    const list = current[key] ?? [];
    return (await this.configure(id, { [`clientCertificates.${key}`]: list.includes(value) ? list : [...list, value] })).merchant;
  }

  /** Refuses a certificate from now on (on every edge replica: docs/decisions/merchant-cache-invalidation.md), whatever else registers it. */
  async revokeCertificate(id: string, fingerprint: string): Promise<MerchantEntity> {
    const current = (await this.require(id)).settings.clientCertificates ?? {};
    const revoked = current.revokedFingerprints ?? [];
    const configured = await this.configure(id, {
      'clientCertificates.fingerprints': (current.fingerprints ?? []).filter((f) => f !== fingerprint),
      'clientCertificates.revokedFingerprints': revoked.includes(fingerprint) ? revoked : [...revoked, fingerprint],
    });
    return configured.merchant;
  }

  async setMode(id: string, mode: MerchantMode): Promise<MerchantEntity> {
    await this.require(id);
    await this.merchants.update(id, { mode });
    return this.require(id);
  }

  async setStatus(id: string, status: MerchantStatus): Promise<MerchantEntity> {
    await this.require(id);
    await this.merchants.update(id, { status });
    return this.require(id);
  }

  /**
   * A new password; the old one keeps working for `keepPreviousMs` (0 revokes it at once), so
   * a merchant can roll the new one out without failed requests.
   */
  async rotatePassword(id: string, keepPreviousMs: number): Promise<IssuedCredentials> {
    const merchant = await this.require(id);
    const password = generateApiPassword();
    await this.merchants.update(id, {
      passwordHash: this.peppers.hash(password),
      previousPasswordHash: keepPreviousMs > 0 ? merchant.passwordHash : null,
      previousPasswordExpiresAt: keepPreviousMs > 0 ? new Date(Date.now() + keepPreviousMs) : null,
    });
    return { merchant: await this.require(id), password };
  }

  /** Which pepper each merchant's password hashes name: when the old pepper of a rotation can be dropped. */
  async pepperCensus(): Promise<PepperCensus> {
    return pepperCensus(this.peppers, await this.merchants.passwordHashes());
  }

  /**
   * A new webhook notification secret, returned once. The previous one keeps signing
   * notifications (a second signature) for `keepPreviousMs`, so a receiver can switch without
   * refusing any.
   */
  async rotateNotificationSecret(id: string, keepPreviousMs: number): Promise<{ merchant: MerchantEntity; secret: string }> {
    const merchant = await this.require(id);
    const issued = this.issueNotificationSecret(id, 'Notification secrets need WEBHOOK_SECRET_KEYS (the keys order-transaction opens them with).');
    const previous = merchant.settings.notifications.secret?.current;
    const secret: NotificationSecretSettings = {
      current: issued.sealed,
      ...(previous && keepPreviousMs > 0 ? { previous, previousValidUntil: new Date(Date.now() + keepPreviousMs).toISOString() } : {}),
    };
    const settings = { ...storedSettings(merchant), notifications: { ...merchant.settings.notifications, secret } };
    await this.merchants.update(id, { settings: validatedSettings(settings) });
    return { merchant: await this.require(id), secret: issued.secret.reveal() };
  }

  /**
   * After a new key was put first in WEBHOOK_SECRET_KEYS: every merchant's sealed secrets sealed
   * again under it, unchanged for the merchant. Answers the merchants re-sealed, and those whose
   * secret no configured key opens (left as they are; issue them a new one).
   */
  async resealNotificationSecrets(): Promise<{ resealed: string[]; unreadable: string[] }> {
    const issuer = this.notificationSecrets;
    if (!issuer) {
      throw GatewayError.invalidRequest('Re-sealing notification secrets needs WEBHOOK_SECRET_KEYS.');
    }
    const resealed: string[] = [];
    const unreadable: string[] = [];
    for (const merchant of await this.merchants.list()) {
      const secret = merchant.settings.notifications.secret;
      if (!secret) {
        continue;
      }
      let current: string | null;
      let previous: string | null;
      try {
        current = issuer.reseal(merchant.id, secret.current);
        previous = secret.previous ? issuer.reseal(merchant.id, secret.previous) : null;
      } catch {
        unreadable.push(merchant.id);
        continue;
      }
      if (current || previous) {
        const next = { ...secret, current: current ?? secret.current, ...(previous ? { previous } : {}) };
        const settings = { ...storedSettings(merchant), notifications: { ...merchant.settings.notifications, secret: next } };
        await this.merchants.update(merchant.id, { settings: validatedSettings(settings) });
        resealed.push(merchant.id);
      }
    }
    return { resealed, unreadable };
  }

  /**
   * Notifications are only ever sent signed: settings with notifications enabled and no secret
   * get one, sealed into them, to be stored in the same write (refused before anything is
   * stored if none can be issued). Returns the secret only when it was issued here.
   */
  private signedIfEnabled(id: string, settings: MerchantSettings): { settings: MerchantSettings; notificationSecret?: string } {
    const notifications = settings.notifications;
    if (!notifications.enabled || notifications.secret) {
      return { settings };
    }
    const issued = this.issueNotificationSecret(id, 'Enabling notifications issues a notification secret, which needs WEBHOOK_SECRET_KEYS.');
    const signed = { ...settings, notifications: { ...notifications, secret: { current: issued.sealed } } };
    return { settings: validatedSettings(signed), notificationSecret: issued.secret.reveal() };
  }

  /** A new notification secret for merchant `id`, sealed; refused with `withoutKeys` when no key can seal it. */
  private issueNotificationSecret(id: string, withoutKeys: string): ReturnType<NotificationSecretIssuer['issue']> {
    if (!this.notificationSecrets) {
      throw GatewayError.invalidRequest(withoutKeys);
    }
    return this.notificationSecrets.issue(id);
  }

  /** A random 12-digit repository id no merchant uses yet. */
  private async unusedRepositoryId(): Promise<string> {
    const used = new Set((await this.merchants.list()).map((m) => m.settings.tokenRepository.id));
    for (;;) {
      // 12 digits, the longest id the spec allows (ASCII 1-16 with the 4-letter Test prefix).
      const id = String(randomInt(100_000_000_000, 1_000_000_000_000));
      if (!used.has(id)) {
        return id;
      }
    }
  }

  private async require(id: string): Promise<MerchantEntity> {
    const merchant = await this.merchants.findById(id);
    if (!merchant) {
      throw new GatewayError('NOT_FOUND', { explanation: `No merchant ${id}.` });
    }
    return merchant;
  }
}

function generateMerchantId(mode: MerchantMode): string {
  const suffix = randomBytes(4).toString('hex').toUpperCase();
  return mode === 'TEST' ? `TEST${suffix}` : `M${suffix}`;
}

/**
 * A copy of the stored settings to change, without AVS rules stored before the codes were checked
 * that never applied (a code the acquirer never returns, a second rule for a code): they would
 * fail the check of every later change, which they never took part in. New ones are refused.
 */
function storedSettings(merchant: MerchantEntity): MerchantSettings {
  const settings = structuredClone(merchant.settings);
  const filtering = settings.transactionFiltering;
  if (Array.isArray(filtering?.avsResponseCodeRules)) {
    filtering.avsResponseCodeRules = usableAvsRules(filtering.avsResponseCodeRules).usable;
  }
  return settings;
}

function validatedSettings(raw: unknown): MerchantSettings {
  const settings = plainToInstance(MerchantSettings, raw);
  const errors = validateSync(settings, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length > 0) {
    throw GatewayError.invalidRequest(`Invalid merchant settings: ${describe(errors).join('; ')}`);
  }
  return JSON.parse(JSON.stringify(settings)) as MerchantSettings;
}

function describe(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((e) => {
    const path = `${prefix}${e.property}`;
    const own = Object.values(e.constraints ?? {}).map((m) => `${path}: ${m}`);
    return [...own, ...describe(e.children ?? [], `${path}.`)];
  });
}

/**
 * A revoked certificate stays revoked: `set` (configure) could undo a revocation, by writing
 * `clientCertificates.revokedFingerprints=[]`, a whole `clientCertificates` object without the
 * list (as written by hand, or `null`), or by registering a revoked fingerprint again (which
 * add-certificate refuses). A `clientCertificates` object written without `revokedFingerprints`
 * keeps the stored ones (as a `notifications` object keeps its secret); a change that names the
 * list, or the whole object as something else, without every revoked fingerprint is refused, as is
 * one that registers a revoked fingerprint. Changes not naming `clientCertificates` are untouched.
 */
function keepRevocations(id: string, stored: ClientCertificateSettings | undefined, changed: Record<string, unknown>, paths: string[]): void {
  if (!paths.some((path) => path === 'clientCertificates' || path.startsWith('clientCertificates.'))) {
    return;
  }
  const revoked = stored?.revokedFingerprints ?? [];
  const certificates = changed.clientCertificates;
  const isObject = typeof certificates === 'object' && certificates !== null && !Array.isArray(certificates);
  if (isObject && revoked.length > 0 && !Object.hasOwn(certificates, 'revokedFingerprints')) {
    (certificates as Record<string, unknown>).revokedFingerprints = [...revoked];
  }
  const listed = isObject ? (certificates as Record<string, unknown>).revokedFingerprints : undefined;
  const now = Array.isArray(listed) ? listed : [];
  const dropped = revoked.filter((fingerprint) => !now.includes(fingerprint));
  if (dropped.length > 0) {
    throw GatewayError.invalidRequest(
      `Certificate ${dropped[0]} is revoked for merchant ${id}${dropped.length > 1 ? ` (and ${dropped.length - 1} more)` : ''}: a revocation is not undone; register the certificate that replaces it.`,
    );
  }
  const registered = isObject ? (certificates as Record<string, unknown>).fingerprints : undefined;
  const before = new Set(stored?.fingerprints ?? []);
  const readmitted = (Array.isArray(registered) ? registered : []).find((fingerprint) => now.includes(fingerprint) && !before.has(fingerprint as string));
  if (readmitted !== undefined) {
    throw GatewayError.invalidRequest(
      `Certificate ${String(readmitted)} is revoked for merchant ${id}: a revoked certificate stays refused; register its replacement.`,
    );
  }
}

/** Whether a change names the sealed notification secret, which only the CLI's own commands write. */
function writesNotificationSecret(path: string, value: unknown): boolean {
  if (path === 'notifications.secret' || path.startsWith('notifications.secret.')) {
    return true;
  }
  return path === 'notifications' && typeof value === 'object' && value !== null && Object.hasOwn(value, 'secret');
}

/**
 * The keys of a dotted setting name (`notifications.enabled`), refused when a part is empty or
 * names an object's prototype (`__proto__`, `constructor`, `prototype`): followed, it would reach
 * Object.prototype and change every object of the process.
 */
export function settingNameKeys(path: string): string[] {
  const keys = path.split('.');
  if (keys.some((k) => k === '' || k === '__proto__' || k === 'constructor' || k === 'prototype')) {
    throw GatewayError.invalidRequest(`Invalid setting name '${path}'.`);
  }
  return keys;
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = settingNameKeys(path);
  let node = target;
  for (const key of keys.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) {
      node[key] = {};
    }
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1]] = value;
}

function mergeDeep<T>(base: T, patch: Record<string, unknown>): T {
  const out = structuredClone(base) as Record<string, unknown>;
  for (const [key, value] of Object.entries(patch)) {
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') {
      throw GatewayError.invalidRequest(`Invalid setting name '${key}'.`);
    }
    if (value && typeof value === 'object' && !Array.isArray(value) && typeof out[key] === 'object') {
      out[key] = mergeDeep(out[key], value as Record<string, unknown>);
    } else {
      out[key] = value;
    }
  }
  return out as T;
}
