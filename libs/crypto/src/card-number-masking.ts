import { mayHoldCardNumber, passesLuhn } from './luhn';

/**
 * How a masked card number reads: `keep-length` (`512345xxxxxx0008`, separators kept) where
 * the text's shape matters, as in an error explanation; `short` (`512345…0008`) in log lines.
 */
export type CardNumberMask = 'keep-length' | 'short';

/**
 * Digit groups joined by what a person writes between them: one to three of space, dot, dash,
 * slash and underscore (`5123 4500 0000 0008`, `5123.4500.0000.0008`, `5123 - 4500 - ...`), or
 * one run, whatever its length (`[0-9]{13,19}` would cut `41111111111111111231`, a card number
 * and its expiry, at 19 digits, and neither piece passes Luhn). Which groups may be read
 * together as one number is decided per group (see `chainFrom`). A UUID is matched first and
 * left alone: its hex groups hold at most 12 digits in a row, and its all-digit groups are no
 * card number written in groups.
 */
const DIGIT_GROUPS = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})|[0-9]+(?:[ ./_-]{1,3}[0-9]+)*/gi;
const SEPARATOR = /([ ./_-]+)/;
const SEPARATORS = /[ ./_-]/g;
/** Single spaces and dashes join groups of three digits or more, whatever their sizes: as the masker always did. */
const PLAIN_SEPARATOR = /^[ -]$/;
const MIN_DIGITS = 13;
const MAX_CARD_DIGITS = 19;

/**
 * Text with every digit run or group of runs that may hold a card number masked 6.4 (the
 * first six digits and the last four shown); other numbers stay readable. Linear in the
 * text's length, so it can run on every log line and on whatever a request sent.
 */
export function maskCardNumbers(text: string, mask: CardNumberMask): string {
  if (text.length < MIN_DIGITS) {
    return text;
  }
  return text.replace(DIGIT_GROUPS, (written: string, uuid: string | undefined, offset: number) =>
    written.length < MIN_DIGITS || uuid !== undefined ? written : maskGroups(written, mask, text[offset - 1] === '+'),
  );
}

/**
 * Whether `text` holds what maskCardNumbers would mask: a card number, alone or among other
 * text, as one run or in groups (fields where the spec rejects sensitive data).
 */
export function holdsCardNumber(text: string): boolean {
  return maskCardNumbers(text, 'keep-length') !== text;
}

/**
 * Whether `text` holds a card number of a major scheme written as a person writes one: a run of
 * 13-19 digits, or groups read together as maskCardNumbers reads them, passing Luhn and starting
 * with a scheme's prefix at a length the scheme issues (isSchemeCardNumber). Narrower than
 * holdsCardNumber, for fields of text written for people (notes, descriptions, item names),
 * where a refusal must not catch references: a run of more than 19 digits, or a number inside
 * one, is not looked at, nor is a 13-digit millisecond time (no scheme starts with 1). A random
 * 16-digit number still passes about one time in forty (Luhn one in ten, a scheme's prefix about
 * one in four), which is why only fields of human text use it.
 */
export function holdsSchemeCardNumber(text: string): boolean {
  if (text.length < MIN_DIGITS) {
    return false;
  }
  for (const match of text.matchAll(DIGIT_GROUPS)) {
    const written = match[0];
    if (written.length < MIN_DIGITS || match[1] !== undefined) {
      continue;
    }
    const parts = written.split(SEPARATOR);
    const afterPlus = text[match.index - 1] === '+';
    for (let first = 0; first < parts.length; first += 2) {
      // A number written in groups starts and ends at a group's edge: the groups from `first`
      // to each later one that may be read with it (at most 19 digits, so at most ten).
      const last = afterPlus && first === 0 ? first : chainFrom(parts, first);
      let digits = '';
      for (let i = first; i <= last; i += 2) {
        digits += parts[i];
        if (isSchemeCardNumber(digits)) {
          return true;
        }
      }
    }
  }
  return false;
}

/**
 * The major schemes' published prefixes and the lengths they issue (the scheme ranges of
 * libs/acquirer's BIN table, with lengths): Visa, Mastercard, American Express, Discover, JCB,
 * Diners Club, UnionPay. Inclusive bounds on a prefix of `low.length` digits. Not Visa's old
 * 13-digit length, no longer issued: a product's EAN-13 in an item name starts with 4 wherever
 * GS1 Germany or Japan issued it, and one in ten of those passes Luhn.
 */
const SCHEME_PREFIXES: readonly { low: string; high: string; lengths: readonly number[] }[] = [
  { low: '4', high: '4', lengths: [16, 19] },
  { low: '51', high: '55', lengths: [16] },
  { low: '2221', high: '2720', lengths: [16] },
  { low: '34', high: '34', lengths: [15] },
  { low: '37', high: '37', lengths: [15] },
  { low: '6011', high: '6011', lengths: [16, 17, 18, 19] },
  { low: '644', high: '649', lengths: [16, 17, 18, 19] },
  { low: '65', high: '65', lengths: [16, 17, 18, 19] },
  { low: '3528', high: '3589', lengths: [16, 17, 18, 19] },
  { low: '300', high: '305', lengths: [14, 15, 16, 17, 18, 19] },
  { low: '36', high: '36', lengths: [14, 15, 16, 17, 18, 19] },
  { low: '38', high: '39', lengths: [16, 17, 18, 19] },
  { low: '62', high: '62', lengths: [16, 17, 18, 19] },
];

/** A run of digits that is a major scheme's card number: its prefix, a length it issues, and Luhn. */
export function isSchemeCardNumber(digits: string): boolean {
  if (digits.length < MIN_DIGITS || digits.length > MAX_CARD_DIGITS) {
    return false;
  }
  const inScheme = SCHEME_PREFIXES.some(({ low, high, lengths }) => {
    const prefix = digits.slice(0, low.length);
    return prefix >= low && prefix <= high && lengths.includes(digits.length);
  });
  return inScheme && passesLuhn(digits);
}

/**
 * The groups that may hold a card number masked, each stretch of such groups as one number. A
 * card number is one group (see mayHoldCardNumber) or several, from one group to a later one:
 * so each group is looked at with the groups after it that may be read with it, as many as fit
 * in 19 digits, and if those hold a card number anywhere, they are all masked. A card number
 * that starts with a group therefore always lies whole in what is masked, which shows no more
 * of it than its first six digits and last four. Each group joins at most nine others (two
 * digits or more each), so a long list of numbers costs linear time. After a `+` the first
 * group is a telephone number's country code: it is read alone.
 */
function maskGroups(written: string, mask: CardNumberMask, afterPlus: boolean): string {
  // Groups at the even indexes, the separator after each at the odd ones.
  const parts = written.split(SEPARATOR);
  const hidden = new Array<boolean>(parts.length).fill(false);
  for (let first = 0; first < parts.length; first += 2) {
    const last = afterPlus && first === 0 ? first : chainFrom(parts, first);
    if (mayHoldCardNumber(digitsOf(parts, first, last))) {
      hidden.fill(true, first, last + 1);
    }
  }
  let out = '';
  for (let start = 0; start < parts.length;) {
    let end = start;
    while (end + 2 < parts.length && hidden[start] && hidden[end + 2]) {
      end += 2;
    }
    const stretch = parts.slice(start, end + 1).join('');
    out += (hidden[start] ? masked(stretch, mask) : stretch) + (parts[end + 1] ?? '');
    start = end + 2;
  }
  return out;
}

/**
 * The last group that may be read with the group at `first` as one number written in groups,
 * within a card number's 19 digits: the longer of
 * - groups of three digits or more joined by single spaces or dashes, of any sizes
 *   (`5123 4500 0000 0008`, `512345-0000000008`);
 * - three groups or more in one of the layouts card numbers are printed in, all joined by the
 *   same separator: equal groups of two digits or more, the last one possibly shorter
 *   (`5123.4500.0000.0008`, `51 23 45 00 00 00 00 08`, `5123  4500  0000  0008`), or four, six,
 *   then four or five digits (American Express, Diners Club: `3782/822463/10005`).
 * Other groupings are how other numbers read: a date (`2026-11-26`, `26.11.2026`), a time, a
 * decimal or a list of them (`12.50 13.75 14.00`), a telephone number (`+44 20 7946 0958`).
 */
function chainFrom(parts: readonly string[], first: number): number {
  return Math.max(plainChain(parts, first), layoutChain(parts, first));
}

function plainChain(parts: readonly string[], first: number): number {
  let last = first;
  let digits = parts[first].length;
  while (
    digits >= 3 &&
    last + 2 < parts.length &&
    PLAIN_SEPARATOR.test(parts[last + 1]) &&
    parts[last + 2].length >= 3 &&
    digits + parts[last + 2].length <= MAX_CARD_DIGITS
  ) {
    last += 2;
    digits += parts[last].length;
  }
  return last;
}

function layoutChain(parts: readonly string[], first: number): number {
  const separator = parts[first + 1];
  let last = first;
  let digits = parts[first].length;
  while (
    last + 2 < parts.length &&
    parts[last + 1] === separator &&
    digits + parts[last + 2].length <= MAX_CARD_DIGITS &&
    inLayout(parts, first, last + 2)
  ) {
    last += 2;
    digits += parts[last].length;
  }
  return (last - first) / 2 + 1 >= 3 ? last : first;
}

/** Whether the groups from `first` to `last` (two or more) may begin a card number's printed layout. */
function inLayout(parts: readonly string[], first: number, last: number): boolean {
  const size = parts[first].length;
  const count = (last - first) / 2 + 1;
  const amex = size === 4 && parts[first + 2].length === 6 && count <= 3 && (count < 3 || [4, 5].includes(parts[last].length));
  if (amex) {
    return true;
  }
  if (size < 2) {
    return false;
  }
  // Equal groups; the last one may be shorter, and nothing may follow a shorter group.
  for (let i = first + 2; i < last; i += 2) {
    if (parts[i].length !== size) {
      return false;
    }
  }
  return parts[last].length >= 1 && parts[last].length <= size;
}

function digitsOf(parts: readonly string[], first: number, last: number): string {
  let digits = '';
  for (let i = first; i <= last; i += 2) {
    digits += parts[i];
  }
  return digits;
}

function masked(written: string, mask: CardNumberMask): string {
  const digits = written.replace(SEPARATORS, '');
  if (mask === 'short') {
    return `${digits.slice(0, 6)}…${digits.slice(-4)}`;
  }
  const hiddenEnd = digits.length - 4;
  let index = -1;
  return written.replace(/[0-9]/g, (digit) => {
    index += 1;
    return index < 6 || index >= hiddenEnd ? digit : 'x';
  });
}
