import { mayHoldCardNumber } from '@gateway/crypto';

/**
 * Defence in depth for PCI: code never logs request bodies or card data on purpose, and this
 * scrubber catches what slips through. Keys that name secrets are replaced whatever their
 * value; digit runs that may hold a card number (see mayHoldCardNumber) are masked in any
 * string; whatever is nested deeper than MAX_DEPTH is dropped, since it is not looked at.
 */
const SENSITIVE_KEY =
  /^(authorization|proxy-authorization|cookie|password|passwd|apipassword|secret|.*secret|securitycode|cvv|cvc|csc|track1|track2|trackdata|pan|cardnumber|number|accountnumber|bankaccountnumber|iban|payload|masterkey|datakey|privatekey|apikey|notificationsecret|x-notification-secret)$/i;

// Whole runs, however long: `\d{13,19}` would cut `41111111111111111231` (a card number and
// its expiry) at 19 digits, and neither piece passes Luhn.
const DIGIT_RUN = /\d{13,}/g;
const MAX_DEPTH = 8;
const TRUNCATED = '[Truncated]';

export function scrubString(value: string): string {
  if (value.length < 13) {
    return value;
  }
  return value.replace(DIGIT_RUN, (run) =>
    mayHoldCardNumber(run) ? `${run.slice(0, 6)}…${run.slice(-4)}` : run,
  );
}

export function scrub(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') {
    return scrubString(value);
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
