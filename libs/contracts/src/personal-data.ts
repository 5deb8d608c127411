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

/** Members of a group that are personal data only in that group: the agreement's customData. */
const PERSONAL_IN_GROUP: Record<string, string> = { agreement: 'customData' };

/**
 * Whether the member `key` of an object found under the member `group` (undefined: at the top,
 * or in an array) is a payer's personal data: a personal data key anywhere, or `customData` in
 * an `agreement` group. What withoutPersonalData drops and the log scrubber redacts.
 */
export function isPersonalDataMember(group: string | undefined, key: string): boolean {
  return isPersonalDataKey(key) || (group !== undefined && Object.hasOwn(PERSONAL_IN_GROUP, group) && PERSONAL_IN_GROUP[group] === key);
}

/** URL members cut to what the gateway still needs of them. */
const URL_KEPT: Record<string, (url: string) => string> = { returnUrl: returnUrlKept, notificationUrl: notificationUrlKept };

/**
 * How a URL member named `key` is cut of what may name the payer (returnUrlKept,
 * notificationUrlKept); undefined for a member that is no such URL. Shared by
 * withoutPersonalData and the log scrubber, so a URL is cut alike in the records and in a log line.
 */
export function urlKeptOf(key: string): ((url: string) => string) | undefined {
  return Object.hasOwn(URL_KEPT, key) ? URL_KEPT[key] : undefined;
}

/**
 * `value` without the members that name personal data, at any depth (in arrays too), with
 * every `returnUrl` (a browser payment's, in its request and in every response about it) cut
 * to its origin and path (returnUrlKept), every `notificationUrl` cut to what its delivery
 * needs (notificationUrlKept), and without an agreement's `customData` (the merchant's free
 * text about the series, and so about its payer; `customData` elsewhere, an acquirer's or a
 * token provider's, is not the payer's); everything else as it was. Answers `value` itself,
 * not a copy, when it holds none: the caller can tell "nothing to strip" by identity, and
 * stripping twice gives the same object back.
 */
export function withoutPersonalData<T extends JsonValue>(value: T): T {
  return stripped(value, undefined);
}

function stripped<T extends JsonValue>(value: T, group: string | undefined): T {
  if (Array.isArray(value)) {
    let changed = false;
    const items = value.map((item) => {
      const kept = stripped(item, undefined);
      changed ||= kept !== item;
      return kept;
    });
    return (changed ? items : value) as T;
  }
  if (value === null || typeof value !== 'object') {
    return value;
  }
  let changed = false;
  const kept: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (isPersonalDataMember(group, key)) {
      changed = true;
      continue;
    }
    const urlKept = urlKeptOf(key);
    const strippedItem = urlKept && typeof item === 'string' ? urlKept(item) : stripped(item, key);
    changed ||= strippedItem !== item;
    kept[key] = strippedItem;
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

/**
 * A merchant's webhook URL without what may name the payer: its query and fragment go (a
 * merchant may put its own reference to the payer there, `?customer=`), its scheme, user info,
 * host, port and path stay. Unlike a return URL's, the user info stays: the dispatcher delivers
 * to this URL and sends its user info as the receiver's HTTP Basic credentials (the merchant's,
 * not the payer's), so a later notification of the order is still delivered to the same
 * receiver and authenticated there as before (docs/decisions/payer-personal-data.md, amendment
 * 2026-11-27). Cut as text, not rebuilt by URL (which lower-cases the host, drops a :443 and
 * resolves dot segments): the rest stays as the merchant wrote it, so the dispatcher's receiver
 * key (RECEIVER_SQL, the authority as written) is the one of the order's other notifications. In
 * a URL a raw `?` or `#` can only open its query or fragment. Answers `url` itself when there is
 * nothing to drop, or when it is not a URL.
 */
export function notificationUrlKept(url: string): string {
  const cut = url.search(/[?#]/);
  return cut === -1 || !URL.canParse(url) ? url : url.slice(0, cut);
}
