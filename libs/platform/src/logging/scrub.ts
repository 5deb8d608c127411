import { passesLuhn } from '@gateway/crypto';

/**
 * Defence in depth for PCI: code never logs request bodies or card data on purpose, and this
 * scrubber catches what slips through. Keys that name secrets are replaced whatever their
 * value; digit runs that look like card numbers (13-19 digits passing Luhn) are masked in
 * any string.
 */
const SENSITIVE_KEY =
  /^(authorization|proxy-authorization|cookie|password|passwd|apipassword|secret|.*secret|securitycode|cvv|cvc|csc|track1|track2|trackdata|pan|cardnumber|number|accountnumber|bankaccountnumber|iban|payload|masterkey|datakey|privatekey|apikey|notificationsecret|x-notification-secret)$/i;

const DIGIT_RUN = /\d{13,19}/g;
const MAX_DEPTH = 8;

export function scrubString(value: string): string {
  if (value.length < 13) {
    return value;
  }
  return value.replace(DIGIT_RUN, (run) => (passesLuhn(run) ? `${run.slice(0, 6)}…${run.slice(-4)}` : run));
}

export function scrub(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') {
    return scrubString(value);
  }
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) {
    return value;
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

export { passesLuhn };
