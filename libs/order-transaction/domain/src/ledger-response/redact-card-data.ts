import { maskPan as maskDigits } from '@gateway/crypto';
import { jsonObjectAt } from '@gateway/contracts';
import type { JsonObject } from '@gateway/contracts';

/** Never kept after the operation that used them (PCI DSS 3.2), even masked. */
const NEVER_STORED = ['securityCode', 'track1', 'track2'];

/**
 * The ledger stores response bodies for replay and retrieval, so it must never hold a PAN or
 * sensitive authentication data, whatever a caller sends: card numbers are masked 6.4
 * (512345xxxxxx0008), provider_c account numbers and IBANs keep only their last 4, and security
 * codes and track data are dropped. Returns a copy; the input is not modified.
 */
export function redactCardData(body: JsonObject): JsonObject {
  const copy = structuredClone(body);
  const provided = jsonObjectAt(copy, 'sourceOfFunds', 'provided');
  const card = jsonObjectAt(provided, 'card');
  if (card) {
    for (const key of NEVER_STORED) {
      delete card[key];
    }
    if (typeof card.number === 'string') {
      card.number = maskPan(card.number);
    }
  }
  const bank = jsonObjectAt(provided, 'provider_c');
  if (bank) {
    for (const key of ['bankAccountNumber', 'iban']) {
      if (typeof bank[key] === 'string') {
        bank[key] = maskAllButLast4(bank[key]);
      }
    }
  }
  return copy;
}

/**
 * 6.4 masking of a card number, as every response masks one (@gateway/crypto's maskPan: the
 * first six and last four digits visible, fewer of them on a short number, never fewer than
 * three digits hidden). A value already masked (at most 10 digits visible) is kept as the
 * caller masked it; one showing more has all but its last four digits hidden.
 */
export function maskPan(number: string): string {
  if (!/^\d+$/.test(number)) {
    const visible = number.replace(/\D/g, '').length;
    return visible <= 10 ? number : maskAllButLast4(number.replace(/\D/g, ''));
  }
  return maskDigits(number);
}

function maskAllButLast4(value: string): string {
  return value.length <= 4 ? 'x'.repeat(value.length) : `${'x'.repeat(value.length - 4)}${value.slice(-4)}`;
}
