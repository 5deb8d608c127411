import { randomBytes } from 'node:crypto';
import { notificationSecretContext } from '@gateway/contracts';
import { SealingKeyRing, Secret } from '@gateway/crypto';

export interface IssuedNotificationSecret {
  /** Shown once, to whoever issued it; the profile keeps it sealed. */
  secret: Secret<string>;
  sealed: string;
}

/**
 * Issues merchants' webhook notification secrets (docs/decisions/webhook-notification-secret.md):
 * 256 random bits, sealed under WEBHOOK_SECRET_KEYS for this merchant only. The edge never
 * opens them; order-transaction's dispatcher does, when it signs a delivery.
 */
export class NotificationSecretIssuer {
  constructor(private readonly keys: SealingKeyRing) {}

  static fromConfig(text: string): NotificationSecretIssuer {
    return new NotificationSecretIssuer(SealingKeyRing.parse(text, 'WEBHOOK_SECRET_KEYS'));
  }

  /** A secret sealed under an older key of the ring, sealed again under the current one (null: already current). */
  reseal(merchantId: string, sealed: string): string | null {
    if (SealingKeyRing.keyIdOf(sealed) === this.keys.currentId) {
      return null;
    }
    const context = notificationSecretContext(merchantId);
    return this.keys.seal(this.keys.open(sealed, context), context);
  }

  issue(merchantId: string): IssuedNotificationSecret {
    const secret = new Secret(randomBytes(32).toString('base64url'));
    return { secret, sealed: this.keys.seal(secret, notificationSecretContext(merchantId)) };
  }
}
