import { mayHoldCardNumber } from './luhn';

/**
 * How a masked card number reads: `keep-length` (`512345xxxxxx0008`, separators kept) where
 * the text's shape matters, as in an error explanation; `short` (`512345…0008`) in log lines.
 */
export type CardNumberMask = 'keep-length' | 'short';

/**
 * Digit groups of three or more, joined by single spaces or dashes: a card number as it is
 * written (`5123 4500 0000 0008`, `5123-4500-0000-0008`) or as one run, whatever its length
 * (`[0-9]{13,19}` would cut `41111111111111111231`, a card number and its expiry, at 19 digits,
 * and neither piece passes Luhn). Shorter groups (dates, times) are not joined.
 */
const DIGIT_GROUPS = /[0-9]{3,}(?:[ -][0-9]{3,})*/g;
const SEPARATOR = /([ -])/;
const SEPARATORS = /[ -]/g;
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
  return text.replace(DIGIT_GROUPS, (written) =>
    written.length < MIN_DIGITS ? written : maskGroups(written, mask),
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
 * The groups that may hold a card number masked, each stretch of such groups as one number. A
 * card number is one group (see mayHoldCardNumber) or several, from one group to a later one:
 * so each group is looked at with as many of the groups after it as fit in 19 digits, and if
 * those hold a card number anywhere, they are all masked. A card number that starts with a
 * group therefore always lies whole in what is masked, which shows no more of it than its
 * first six digits and last four. Each group joins at most six others (three digits or more
 * each), so a long list of numbers costs linear time.
 */
function maskGroups(written: string, mask: CardNumberMask): string {
  // Groups at the even indexes, the separator after each at the odd ones.
  const parts = written.split(SEPARATOR);
  const hidden = new Array<boolean>(parts.length).fill(false);
  for (let first = 0; first < parts.length; first += 2) {
    const { last, digits } = groupsFrom(parts, first);
    if (mayHoldCardNumber(digits)) {
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

/** The groups from `first` on that fit in a card number's length, joined: their digits and the last of them. */
function groupsFrom(parts: readonly string[], first: number): { last: number; digits: string } {
  let digits = parts[first];
  let last = first;
  while (last + 2 < parts.length && digits.length + parts[last + 2].length <= MAX_CARD_DIGITS) {
    last += 2;
    digits += parts[last];
  }
  return { last, digits };
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
