import { maskCardNumbers } from '@gateway/crypto';

/**
 * Defence in depth for PCI: code never logs request bodies or card data on purpose, and this
 * scrubber catches what slips through. Keys that name secrets are replaced whatever their
 * value; digits that may hold a card number (see maskCardNumbers) are masked in any string
 * or number; whatever is nested deeper than MAX_DEPTH is dropped, since it is not looked at.
 */
const SENSITIVE_KEY =
  /^(authorization|proxy-authorization|cookie|password|passwd|apipassword|secret|.*secret|securitycode|cvv|cvc|csc|track1|track2|trackdata|pan|cardnumber|number|accountnumber|bankaccountnumber|iban|payload|masterkey|datakey|privatekey|apikey|notificationsecret|x-notification-secret)$/i;

const MAX_DEPTH = 8;
const TRUNCATED = '[Truncated]';

export function scrubString(value: string): string {
  return maskCardNumbers(value, 'short');
}

export function scrub(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') {
    return scrubString(value);
  }
  if (typeof value === 'number' || typeof value === 'bigint') {
    // A card number sent as a JSON number is still one.
    const digits = value.toString();
    const masked = scrubString(digits);
    return masked === digits ? value : masked;
  }
  if (value === null || typeof value !== 'object') {
    return value;
  }
  if (depth > MAX_DEPTH) {
    // Not looked at, so not logged: it could hold a card number or a secret's key.
    return TRUNCATED;
  }
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return {
      type: value.name,
      message: scrubString(value.message),
      ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
      stack: value.stack && scrubString(value.stack),
      ...(value.cause !== undefined ? { cause: scrub(value.cause, depth + 1) } : {}),
    };
  }
  if (Array.isArray(value)) {
    return value.map((item) => scrub(item, depth + 1));
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = SENSITIVE_KEY.test(key) ? '[REDACTED]' : scrub(item, depth + 1);
  }
  return out;
}
