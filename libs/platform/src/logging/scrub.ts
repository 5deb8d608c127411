import { isPersonalDataMember, urlKeptOf } from '@gateway/contracts';
import { maskCardNumbers } from '@gateway/crypto';

/**
 * Defence in depth for PCI and the payers' privacy: code never logs request bodies, card data
 * or a payer's personal data on purpose, and this scrubber catches what slips through. Keys
 * that name secrets or a payer's personal data (an agreement's `customData` included: contracts'
 * isPersonalDataMember, what the payer's erasure strips) are replaced whatever their value; a
 * `notificationUrl` or `returnUrl` is cut as the erasure cuts it (urlKeptOf) and shown without
 * user info; digits that may hold a card number (see maskCardNumbers) and e-mail addresses are
 * masked in any string; whatever is nested deeper than MAX_DEPTH is dropped, since it is not
 * looked at.
 */
const SENSITIVE_KEY =
  /^(authorization|proxy-authorization|cookie|password|passwd|apipassword|secret|.*secret|securitycode|cvv|cvc|csc|track1|track2|trackdata|pan|cardnumber|number|accountnumber|bankaccountnumber|iban|payload|masterkey|datakey|privatekey|apikey|notificationsecret|x-notification-secret)$/i;

const EMAIL_LOCAL_CHAR = /[A-Za-z0-9._%+-]/;
const EMAIL_DOMAIN_CHAR = /[A-Za-z0-9.-]/;
const EMAIL_DOMAIN = /^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/;
const EMAIL_MASK = '[email]';

const MAX_DEPTH = 8;
const TRUNCATED = '[Truncated]';

export function scrubString(value: string): string {
  return maskEmailAddresses(maskCardNumbers(value, 'short'));
}

/**
 * Every e-mail address in free text (an explanation that quotes the address it refuses, an
 * error's message) as `[email]`. Read outward from each '@' rather than with one regular
 * expression: a long run of address characters is then read once, not once per start position.
 */
function maskEmailAddresses(text: string): string {
  let at = text.indexOf('@');
  if (at < 0) {
    return text;
  }
  let out = '';
  let copied = 0;
  while (at >= 0) {
    let start = at;
    while (start > copied && EMAIL_LOCAL_CHAR.test(text[start - 1])) start--;
    let end = at + 1;
    while (end < text.length && EMAIL_DOMAIN_CHAR.test(text[end])) end++;
    const domain = EMAIL_DOMAIN.exec(text.slice(at + 1, end));
    if (start < at && domain) {
      out += text.slice(copied, start) + EMAIL_MASK;
      copied = at + 1 + domain[0].length;
    }
    at = text.indexOf('@', Math.max(at + 1, copied));
  }
  return out + text.slice(copied);
}

export function scrub(value: unknown, depth = 0): unknown {
  return scrubbed(value, depth, undefined);
}

/** `value` scrubbed, found under the member `group` (undefined: at the top, or in an array). */
function scrubbed(value: unknown, depth: number, group: string | undefined): unknown {
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
    return value.map((item) => scrubbed(item, depth + 1, undefined));
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] =
      SENSITIVE_KEY.test(key) || isPersonalDataMember(group, key)
        ? '[REDACTED]'
        : scrubbedMember(key, item, depth + 1);
  }
  return out;
}

function scrubbedMember(key: string, item: unknown, depth: number): unknown {
  const urlKept = urlKeptOf(key);
  return urlKept && typeof item === 'string'
    ? scrubString(withoutUserInfo(urlKept(item)))
    : scrubbed(item, depth, key);
}

/**
 * A URL without its user info, the rest as written. A notification URL keeps it in the records
 * (the receiver's HTTP Basic credentials, which its deliveries need), but a log line is no place
 * for the merchant's credentials.
 */
function withoutUserInfo(url: string): string {
  const userInfo = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#]*@/.exec(url);
  return userInfo ? userInfo[1] + url.slice(userInfo[0].length) : url;
}
