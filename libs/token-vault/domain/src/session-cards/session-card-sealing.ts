import { Inject, Injectable } from '@nestjs/common';
import { CardExpiryFields, ExplicitCardFields, GatewayError } from '@gateway/contracts';
import { DecryptionError, Pan, Secret, VaultKeys } from '@gateway/crypto';
import { VAULT_KEYS } from '../instrument/token-sealing';

/** A payment session's card as the vault opens it: any subset of the four details. */
export interface SessionCard {
  number?: Pan;
  expiry?: CardExpiryFields;
  securityCode?: Secret<string>;
  nameOnCard?: string;
}

/** Where a sealed value may be opened: the merchant it was sealed for and its binding (session id). */
export interface SealBinding {
  merchantId: string;
  bindingId: string;
}

/** The plaintext inside a sealed value. */
interface SealedFields {
  number?: string;
  expiry?: { month: string; year: string };
  securityCode?: string;
  nameOnCard?: string;
}

/** Marks the format, so a later format can be told apart without trying to decrypt. */
const PREFIX = 'sc1.';

/**
 * Seals payment session card details under the vault's envelope encryption (the same data
 * keys as tokens, so key rotation and the master key cover them) into an opaque string the edge
 * keeps in the session. The merchant id and binding id (the session id) are GCM additional
 * data: a value copied to another session or merchant fails authentication and nothing is
 * decrypted.
 *
 * The security code is sealed with the rest and lives only as long as the session that holds
 * it (PCI DSS allows sensitive authentication data before authorisation when it is encrypted;
 * docs/card-custody.md). Nothing here is written to the database.
 */
@Injectable()
export class SessionCardSealing {
  constructor(@Inject(VAULT_KEYS) private readonly keys: VaultKeys) {}

  seal(binding: SealBinding, card: ExplicitCardFields): string {
    const fields: SealedFields = {
      ...(card.number !== undefined ? { number: card.number } : {}),
      ...(card.expiry !== undefined ? { expiry: { month: card.expiry.month, year: card.expiry.year } } : {}),
      ...(card.securityCode !== undefined ? { securityCode: card.securityCode } : {}),
      ...(card.nameOnCard !== undefined ? { nameOnCard: card.nameOnCard } : {}),
    };
    const sealed = this.keys.sealer().seal(JSON.stringify(fields), context(binding));
    return `${PREFIX}${sealed.toString('base64url')}`;
  }

  /** The sealed card, or a 400 on `session.id` when it does not open for this merchant and binding. */
  async open(binding: SealBinding, value: string): Promise<SessionCard> {
    try {
      return await this.decrypt(binding, value);
    } catch (err) {
      if (err instanceof DecryptionError) {
        throw unusableSessionCard();
      }
      throw err;
    }
  }

  /**
   * The session's current card, to merge an update into: as `open`, but nothing (an empty card)
   * when its data key was destroyed after a key rotation. Nothing can be recovered from such a
   * value, and the payer entering the card again must be able to replace it; refusing would
   * leave the session unusable until it expires. A value that fails for any other reason
   * (another session's, altered) is still refused.
   */
  async openPrevious(binding: SealBinding, value: string): Promise<SessionCard> {
    try {
      return await this.decrypt(binding, value);
    } catch (err) {
      if (err instanceof DecryptionError && err.reason === 'UNKNOWN_KEY') {
        return {};
      }
      if (err instanceof DecryptionError) {
        throw unusableSessionCard();
      }
      throw err;
    }
  }

  private async decrypt(binding: SealBinding, value: string): Promise<SessionCard> {
    if (!value.startsWith(PREFIX)) {
      throw new DecryptionError('MALFORMED', 'unknown sealed card format');
    }
    const plaintext = await this.keys.open(Buffer.from(value.slice(PREFIX.length), 'base64url'), context(binding));
    const fields = JSON.parse(plaintext.toString('utf8')) as SealedFields;
    return {
      ...(fields.number !== undefined ? { number: Pan.of(fields.number) } : {}),
      ...(fields.expiry !== undefined ? { expiry: fields.expiry } : {}),
      ...(fields.securityCode !== undefined ? { securityCode: new Secret(fields.securityCode) } : {}),
      ...(fields.nameOnCard !== undefined ? { nameOnCard: fields.nameOnCard } : {}),
    };
  }
}

/**
 * The same answer whatever the reason (another session's or merchant's value, tampering, a key
 * destroyed after rotation): which one it was would tell a prober something and help no
 * merchant, who can always update the session's card again.
 */
function unusableSessionCard(): GatewayError {
  return GatewayError.invalidField(
    'session.id',
    'INVALID',
    "The payment session's card details cannot be used for this request. Update the session with the card details again.",
  );
}

function context(binding: SealBinding): string {
  return `token-vault.session-card:v1:${binding.merchantId}:${binding.bindingId}`;
}
