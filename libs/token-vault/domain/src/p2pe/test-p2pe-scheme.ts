import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';
import { GatewayError, MerchantContext } from '@gateway/contracts';
import { Pan, Secret } from '@gateway/crypto';
import type { P2peFields } from '../save-token/save-token-fields';

/**
 * Point-to-point encrypted card data (the spec's p2pe group: DUKPT key serial number and
 * payload). Real DUKPT decryption belongs in an HSM holding the acquirer's base derivation key;
 * none is connected, so live merchants' p2pe data is refused. Test merchants' terminals use a
 * documented TEST scheme (docs/p2pe-test-scheme.md), honest about not being DUKPT:
 *
 *   key       = HMAC-SHA256(test BDK, "gateway-p2pe-test-v1" || KSN bytes)   (a key per KSN, like DUKPT's per-transaction keys)
 *   payload   = AES-256-CBC(key, IV, PKCS#7(ASCII digits of the PAN))
 *   IV        = initializationVector (16 bytes), or 16 zero bytes when absent
 *
 * The test BDK is configuration (VAULT_P2PE_TEST_BDK); its default is the published ANSI X9.24
 * sample BDK, which protects nothing and is only ever applied to test merchants.
 */
export const TEST_P2PE_SCHEME = Symbol('TEST_P2PE_SCHEME');

const KEY_LABEL = Buffer.from('gateway-p2pe-test-v1', 'ascii');
const ZERO_IV = Buffer.alloc(16);
const FIELD = 'sourceOfFunds.provided.card.p2pe';

export class TestP2peScheme {
  constructor(private readonly bdk: Secret<Buffer>) {}

  /** The PAN a test terminal encrypted; field errors for everything the spec says is rejected. */
  decrypt(merchant: MerchantContext, p2pe: P2peFields): Pan {
    if (merchant.mode !== 'TEST') {
      throw GatewayError.invalidField(FIELD, 'UNSUPPORTED', 'P2PE card data cannot be decrypted for this merchant: no key management for live terminals is configured.');
    }
    if (p2pe.encryptionState === 'INVALID') {
      throw GatewayError.invalidField(
        `${FIELD}.encryptionState`,
        'INVALID',
        "Value 'INVALID' is invalid. The terminal reported an encryption error, so the gateway declines the card data.",
      );
    }
    const iv = p2pe.initializationVector === undefined ? ZERO_IV : Buffer.from(p2pe.initializationVector, 'hex');
    if (iv.length !== 16) {
      throw GatewayError.invalidField(`${FIELD}.initializationVector`, 'INVALID', `Value '${p2pe.initializationVector}' is invalid. The test scheme uses a 16-byte (32 hex digit) initialization vector.`);
    }
    const pan = this.open(p2pe.keySerialNumber, iv, Buffer.from(p2pe.payload, 'hex'));
    if (!pan) {
      throw GatewayError.invalidField(`${FIELD}.payload`, 'INVALID', 'The payload could not be decrypted with the key serial number given.');
    }
    // The card number field's rule (Luhn) holds for a number the terminal encrypted too.
    if (!pan.passesLuhn()) {
      throw GatewayError.invalidField(`${FIELD}.payload`, 'INVALID', 'The decrypted card number fails the card number check (Luhn).');
    }
    if (p2pe.cardBin !== undefined && !pan.reveal().startsWith(p2pe.cardBin)) {
      throw GatewayError.invalidField(`${FIELD}.cardBin`, 'INVALID', `Value '${p2pe.cardBin}' is invalid. The decrypted card number does not start with these digits.`);
    }
    return pan;
  }

  /** What a test terminal does: for tests and for merchants building test payloads. */
  encrypt(pan: Pan, keySerialNumber: string, iv: Buffer = ZERO_IV): string {
    const cipher = createCipheriv('aes-256-cbc', this.keyFor(keySerialNumber), iv);
    return Buffer.concat([cipher.update(pan.reveal(), 'ascii'), cipher.final()]).toString('hex').toUpperCase();
  }

  private open(keySerialNumber: string, iv: Buffer, payload: Buffer): Pan | null {
    try {
      const decipher = createDecipheriv('aes-256-cbc', this.keyFor(keySerialNumber), iv);
      const digits = Buffer.concat([decipher.update(payload), decipher.final()]).toString('ascii');
      return /^[0-9]{9,19}$/.test(digits) ? Pan.of(digits) : null;
    } catch {
      // Bad padding: wrong key (KSN), wrong IV or a corrupted payload.
      return null;
    }
  }

  private keyFor(keySerialNumber: string): Buffer {
    return createHmac('sha256', this.bdk.reveal()).update(KEY_LABEL).update(Buffer.from(keySerialNumber, 'hex')).digest();
  }
}

/** The published ANSI X9.24 sample base derivation key: a test key by definition. */
export const X9_24_SAMPLE_BDK_HEX = '0123456789ABCDEFFEDCBA9876543210';

export function testBdkFromHex(hex: string): Secret<Buffer> {
  if (!/^([0-9A-Fa-f]{32}|[0-9A-Fa-f]{48}|[0-9A-Fa-f]{64})$/.test(hex)) {
    throw new Error('VAULT_P2PE_TEST_BDK must be 16, 24 or 32 bytes in hex');
  }
  return new Secret(Buffer.from(hex, 'hex'));
}
