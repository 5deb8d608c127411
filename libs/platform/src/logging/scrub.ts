import { isPersonalDataMember, urlKeptOf } from '@gateway/contracts';
import { maskCardNumbers } from '@gateway/crypto';

/**
 * Defence in depth for PCI and the payers' privacy: code never logs request bodies, card data
 * or a payer's personal data on purpose, and this scrubber catches what slips through. Keys
 * that name secrets or a payer's personal data (an agreement's `customData` included: contracts'
 * isPersonalDataMember, what the payer's erasure strips) are replaced whatever their value; a
 * `notificationUrl` or `returnUrl` is cut as the erasure cuts it (urlKeptOf); every URL in any
 * string loses its user info, query and fragment; digits that may hold a card number (see
 * maskCardNumbers) and e-mail addresses are masked in any string; whatever is nested deeper than
 * MAX_DEPTH is dropped, since it is not looked at.
 */
const SENSITIVE_KEY =
  /^(authorization|proxy-authorization|cookie|password|passwd|apipassword|secret|.*secret|securitycode|cvv|cvc|csc|expiry|expirymonth|expiryyear|track1|track2|trackdata|pan|cardnumber|number|accountnumber|bankaccountnumber|iban|payload|masterkey|datakey|privatekey|apikey|notificationsecret|x-notification-secret)$/i;

const EMAIL_LOCAL_CHAR = /[A-Za-z0-9._%+-]/;
const EMAIL_DOMAIN_CHAR = /[A-Za-z0-9.-]/;
const EMAIL_DOMAIN = /^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/;
const EMAIL_MASK = '[email]';

const SCHEME_CHAR = /[A-Za-z0-9+.-]/;
const SCHEME_START = /[A-Za-z]/;
/** Where a URL in free text ends: white space, a quote, an angle bracket. */
const URL_END = /[\s"'`<>]/;
/** What closes the text around a URL (a parenthesis, a sentence), kept when the URL is cut before it. */
const TRAILING_PUNCTUATION = ').,;:]}';

const MAX_DEPTH = 8;
const TRUNCATED = '[Truncated]';

export function scrubString(value: string): string {
  return maskEmailAddresses(maskCardNumbers(withoutUrlSecrets(value), 'short'));
}

/**
 * Every URL in free text (an error's message or stack, an explanation) as its scheme, host and
 * path: without user info (a webhook receiver's credentials: fetch, for one, quotes a URL that
 * holds them in its error) and without its query and fragment (where a merchant may put what
 * names the payer), as the URL members are cut. Found from each '://' outward, not with one
 * regular expression, and each URL read once: what follows it is read from its end, so text of
 * any shape (a value a merchant sent, quoted in an explanation) costs its length.
 */
function withoutUrlSecrets(text: string): string {
  let mark = text.indexOf('://');
  if (mark < 0) {
    return text;
  }
  let out = '';
  let copied = 0;
  let end = 0;
  while (mark >= 0) {
    let start = mark;
    while (start > copied && SCHEME_CHAR.test(text[start - 1])) start--;
    while (start < mark && !SCHEME_START.test(text[start])) start++;
    // The end of the text this '://' is in: found once for every '://' of it.
    if (end < mark) {
      end = mark + 3;
      while (end < text.length && !URL_END.test(text[end])) end++;
    }
    if (start === mark) {
      // No scheme before it: no URL begins here (one may begin at a later '://').
      mark = text.indexOf('://', mark + 3);
      continue;
    }
    const rest = text.slice(mark + 3, end);
    const authorityEnd = firstOf(rest, '/?#', 0);
    const userInfoEnd = rest.lastIndexOf('@', authorityEnd - 1);
    const cutAt = firstOf(rest, '?#', authorityEnd);
    if (userInfoEnd >= 0 || cutAt < rest.length) {
      let trailingFrom = rest.length;
      while (trailingFrom > cutAt && TRAILING_PUNCTUATION.includes(rest[trailingFrom - 1])) trailingFrom--;
      out += text.slice(copied, mark + 3) + rest.slice(userInfoEnd + 1, cutAt) + rest.slice(trailingFrom);
      copied = end;
    }
    // The rest of this URL, a '://' in its path included, is read: the next begins after it.
    mark = text.indexOf('://', end);
  }
  return out + text.slice(copied);
}

/** The index of the first of `chars` in `text` from `from`, or the text's length. */
function firstOf(text: string, chars: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    if (chars.includes(text[i])) return i;
  }
  return text.length;
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

/**
 * A URL member cut as the erasure cuts it; scrubString then takes its user info, which a
 * notification URL keeps in the records (the receiver's HTTP Basic credentials, which its
 * deliveries need) but a log line is no place for.
 */
function scrubbedMember(key: string, item: unknown, depth: number): unknown {
  const urlKept = urlKeptOf(key);
  return urlKept && typeof item === 'string' ? scrubString(urlKept(item)) : scrubbed(item, depth, key);
}
