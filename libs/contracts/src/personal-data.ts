import type { JsonObject, JsonValue } from './messages/operation.messages';

/**
 * A payer's personal data as the API names it (docs/decisions/payer-personal-data.md): the
 * groups that hold nothing else (billing, shipping, customer, device, an account funding
 * recipient) whole, and the fields found outside them (name on card, wallet and bank account
 * holders, the order's notes and custom fields). Names are matched as the API spells them, so
 * keys of other kinds (a log line's `name`, `url`, `target`; a response's `order`, `transaction`,
 * `sourceOfFunds`) are not caught. One list for the log scrubber and for the erasure of stored
 * data: a field the scrubber hides from logs is one the erasure strips from the records.
 */
const PERSONAL_DATA_KEY =
  /^(billing|shipping|customer|device|recipient|email|accountemail|phone|mobilephone|firstname|middlename|lastname|nameoncard|accountholder|bankaccountholder|street|street2|postcodezip|ipaddress|customernote|merchantnote|custom)$/i;

export function isPersonalDataKey(key: string): boolean {
  return PERSONAL_DATA_KEY.test(key);
}

/**
 * `value` without the members that name personal data, at any depth (in arrays too), and with
 * every `returnUrl` (a browser payment's, in its request and in every response about it) cut
 * to its origin and path (returnUrlKept); everything else as it was. Answers `value` itself,
 * not a copy, when it holds none: the caller can tell "nothing to strip" by identity, and
 * stripping twice gives the same object back.
 */
export function withoutPersonalData<T extends JsonValue>(value: T): T {
  if (Array.isArray(value)) {
    let changed = false;
    const items = value.map((item) => {
      const stripped = withoutPersonalData(item);
      changed ||= stripped !== item;
      return stripped;
    });
    return (changed ? items : value) as T;
  }
  if (value === null || typeof value !== 'object') {
    return value;
  }
  let changed = false;
  const kept: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (isPersonalDataKey(key)) {
      changed = true;
      continue;
    }
    const stripped = key === 'returnUrl' && typeof item === 'string' ? returnUrlKept(item) : withoutPersonalData(item);
    changed ||= stripped !== item;
    kept[key] = stripped;
  }
  return (changed ? kept : value) as T;
}

/**
 * A merchant's return URL without what may name the payer: its origin and path stay, its user
 * info, query and fragment go. The query and fragment are the merchant's to fill, and merchants
 * put their own references to the payer there (`?email=`, a customer number, a basket id);
 * the origin and path are the merchant's page, which the gateway still needs (a browser
 * payment's return URL cannot be empty: a payer's browser coming back after the erasure, a
 * reload of the gateway's return, is still sent there with the order and transaction ids).
 * Answers `url` itself when there is nothing to drop, or when it is not a URL.
 */
export function returnUrlKept(url: string): string {
  if (!URL.canParse(url)) {
    return url;
  }
  const parsed = new URL(url);
  const nothingToDrop = !/[?#]/.test(url) && parsed.username === '' && parsed.password === '';
  return nothingToDrop ? url : `${parsed.origin}${parsed.pathname}`;
}
