import type { VerifyCard, VerifyPosTerminal } from '@gateway/contracts';
import { isCardNumber } from '@gateway/crypto';
import { invalidSensitive } from '../../request-errors/request-errors';

const FIELD = 'sourceOfFunds.provided.card.emvRequest';

type FilledCardField = 'number' | 'expiry';
type FilledPosField = 'attended' | 'inputCapability' | 'lane';

interface EmvTagRule {
  /** PCI-sensitive (card number, expiry): left out of the response and the acquirer's EMV data. */
  readonly sensitive?: boolean;
}

/**
 * The EMV tags a terminal may send in `emvRequest` (BER-TLV, hex). Anything else, notably
 * track data (57, 56, 9F6B, 9F1F, 9F20), the cardholder name (5F20) and PIN data (99), is
 * rejected: those must never reach the gateway in this field.
 */
const ALLOWED_TAGS: ReadonlyMap<string, EmvTagRule> = new Map([
  ['4F', {}], // application identifier (AID)
  ['50', {}], // application label
  ['5A', { sensitive: true }], // PAN → sourceOfFunds.provided.card.number
  ['5F24', { sensitive: true }], // expiry YYMMDD → sourceOfFunds.provided.card.expiry
  ['5F2A', {}], // transaction currency code
  ['5F34', {}], // PAN sequence number → sourceOfFunds.provided.card.sequenceNumber
  ['82', {}], // application interchange profile
  ['84', {}], // dedicated file name
  ['95', {}], // terminal verification results
  ['9A', {}], // transaction date
  ['9B', {}], // transaction status information
  ['9C', {}], // transaction type
  ['9F02', {}], // amount, authorised
  ['9F03', {}], // amount, other
  ['9F06', {}], // AID (terminal)
  ['9F07', {}], // application usage control
  ['9F09', {}], // application version number
  ['9F10', {}], // issuer application data
  ['9F1A', {}], // terminal country code
  ['9F1C', {}], // terminal identification → posTerminal.lane
  ['9F1E', {}], // interface device serial number
  ['9F26', {}], // application cryptogram
  ['9F27', {}], // cryptogram information data
  ['9F33', {}], // terminal capabilities → posTerminal.inputCapability
  ['9F34', {}], // cardholder verification method results
  ['9F35', {}], // terminal type → posTerminal.attended
  ['9F36', {}], // application transaction counter
  ['9F37', {}], // unpredictable number
  ['9F41', {}], // transaction sequence counter
  ['9F53', {}], // transaction category code
  ['9F6E', {}], // form factor indicator / third party data
]);

export interface EmvTag {
  readonly tag: string;
  /** Value bytes as uppercase hex. */
  readonly value: string;
}

export interface ParsedEmvRequest {
  readonly tags: readonly EmvTag[];
  /** The EMV data without PCI-sensitive tags, re-encoded; undefined when nothing is left. */
  readonly withoutSensitiveTags?: string;
  /** Explicit fields the tags carry, decoded. */
  readonly card: { number?: string; expiry?: { month: string; year: string }; sequenceNumber?: string };
  readonly posTerminal: { attended?: string; inputCapability?: string; lane?: string };
}

/**
 * Parses `emvRequest`: hex BER-TLV with only the allowed tags, each at most once. Errors
 * never quote the value (it may hold the card number) but may name a tag.
 */
export function parseEmvRequest(emvRequest: string): ParsedEmvRequest {
  if (!/^(?:[0-9A-Fa-f]{2})+$/.test(emvRequest)) {
    throw invalidSensitive(FIELD, 'EMV data is TLV-encoded hexadecimal.');
  }
  const bytes = Buffer.from(emvRequest, 'hex');
  const tags = readTlv(bytes);
  const kept = tags.filter((t) => !ALLOWED_TAGS.get(t.tag)?.sensitive);
  return {
    tags,
    ...(kept.length ? { withoutSensitiveTags: kept.map(encodeTlv).join('') } : {}),
    card: decodeCardFields(tags),
    posTerminal: decodePosFields(tags),
  };
}

/**
 * Fills the explicit fields the request left out from the EMV tags. When the merchant sent
 * both, the explicit field is used and no consistency check is made (the spec). VERIFY has no
 * explicit sequence number field: tag 5F34 reaches the acquirer and the response from
 * `emv.card.sequenceNumber`.
 */
export function fillFromEmv(
  card: VerifyCard,
  posTerminal: VerifyPosTerminal | undefined,
  emv: ParsedEmvRequest,
): { card: VerifyCard; posTerminal: VerifyPosTerminal | undefined } {
  const filledCard: VerifyCard = { ...card };
  for (const field of ['number', 'expiry'] as FilledCardField[]) {
    if (filledCard[field] === undefined && emv.card[field] !== undefined) {
      (filledCard as Record<FilledCardField, unknown>)[field] = emv.card[field];
    }
  }
  const posFields = Object.entries(emv.posTerminal) as [FilledPosField, string][];
  if (posFields.length === 0) {
    return { card: filledCard, posTerminal };
  }
  const filledPos: VerifyPosTerminal = { ...posTerminal };
  for (const [field, value] of posFields) {
    if (filledPos[field] === undefined) {
      // The decoders below only produce values of these fields' enumerations.
      (filledPos as Record<FilledPosField, string | undefined>)[field] = value;
    }
  }
  return { card: filledCard, posTerminal: filledPos };
}

function readTlv(bytes: Buffer): EmvTag[] {
  const tags: EmvTag[] = [];
  const seen = new Set<string>();
  let at = 0;
  while (at < bytes.length) {
    const tagStart = at;
    // A first byte with its low five bits set announces more tag bytes, each with bit 8
    // set while another follows (EMV Book 3, Annex B).
    if ((bytes[at++] & 0x1f) === 0x1f) {
      while (at < bytes.length && bytes[at] & 0x80) at++;
      at++;
    }
    if (at > bytes.length) {
      throw invalidSensitive(FIELD, 'The EMV data ends inside a tag.');
    }
    const tag = bytes.subarray(tagStart, at).toString('hex').toUpperCase();
    const { length, next } = readLength(bytes, at);
    if (next + length > bytes.length) {
      throw invalidSensitive(FIELD, `EMV tag ${tag} is longer than the data.`);
    }
    if (!ALLOWED_TAGS.has(tag)) {
      throw invalidSensitive(FIELD, `EMV tag ${tag} is not supported.`);
    }
    if (seen.has(tag)) {
      throw invalidSensitive(FIELD, `EMV tag ${tag} is given more than once.`);
    }
    seen.add(tag);
    tags.push({
      tag,
      value: bytes
        .subarray(next, next + length)
        .toString('hex')
        .toUpperCase(),
    });
    at = next + length;
  }
  return tags;
}

/** BER length: one byte below 0x80, or 0x81/0x82 followed by one or two length bytes. */
function readLength(bytes: Buffer, at: number): { length: number; next: number } {
  if (at >= bytes.length) {
    throw invalidSensitive(FIELD, 'The EMV data ends before a length.');
  }
  const first = bytes[at];
  if (first < 0x80) {
    return { length: first, next: at + 1 };
  }
  const count = first & 0x7f;
  if (count < 1 || count > 2 || at + count >= bytes.length) {
    throw invalidSensitive(FIELD, 'An EMV length is not valid.');
  }
  return { length: bytes.readUIntBE(at + 1, count), next: at + 1 + count };
}

function encodeTlv({ tag, value }: EmvTag): string {
  const length = value.length / 2;
  const lengthHex =
    length < 0x80
      ? hexByte(length)
      : length < 0x100
        ? `81${hexByte(length)}`
        : `82${length.toString(16).padStart(4, '0').toUpperCase()}`;
  return `${tag}${lengthHex}${value}`;
}

function hexByte(value: number): string {
  return value.toString(16).padStart(2, '0').toUpperCase();
}

function decodeCardFields(tags: readonly EmvTag[]): ParsedEmvRequest['card'] {
  const card: { number?: string; expiry?: { month: string; year: string }; sequenceNumber?: string } = {};
  const pan = valueOf(tags, '5A');
  if (pan !== undefined) {
    // Compressed numeric: BCD digits, padded with trailing F to whole bytes.
    const digits = pan.replace(/F+$/, '');
    // The card number field's own rule (Digits(9-19) passing Luhn): a number read from the chip
    // is held to it like a keyed one, so a Luhn failure reaches no acquirer by this way either.
    if (!isCardNumber(digits)) {
      throw invalidSensitive(FIELD, 'EMV tag 5A is not a card number.');
    }
    card.number = digits;
  }
  const expiry = valueOf(tags, '5F24');
  if (expiry !== undefined) {
    const match = /^([0-9]{2})([0-9]{2})([0-9]{2})$/.exec(expiry);
    const month = match ? Number(match[2]) : 0;
    if (!match || month < 1 || month > 12) {
      throw invalidSensitive(FIELD, 'EMV tag 5F24 is not an expiry date (YYMMDD).');
    }
    card.expiry = { month: String(month), year: match[1] };
  }
  const sequence = valueOf(tags, '5F34');
  if (sequence !== undefined) {
    if (!/^[0-9]{2}$/.test(sequence)) {
      throw invalidSensitive(FIELD, 'EMV tag 5F34 is not a PAN sequence number.');
    }
    card.sequenceNumber = String(Number(sequence));
  }
  return card;
}

function decodePosFields(tags: readonly EmvTag[]): ParsedEmvRequest['posTerminal'] {
  const pos: { attended?: string; inputCapability?: string; lane?: string } = {};
  const terminalType = valueOf(tags, '9F35');
  const attended = terminalType === undefined ? undefined : attendanceOf(terminalType);
  if (attended) pos.attended = attended;
  const capabilities = valueOf(tags, '9F33');
  const inputCapability = capabilities === undefined ? undefined : inputCapabilityOf(capabilities);
  if (inputCapability) pos.inputCapability = inputCapability;
  const terminalId = valueOf(tags, '9F1C');
  if (terminalId !== undefined) {
    const lane = Buffer.from(terminalId, 'hex').toString('latin1').trim();
    if (!/^[\x20-\x7e]{1,8}$/.test(lane)) {
      throw invalidSensitive(FIELD, 'EMV tag 9F1C is not a terminal identification (8 characters).');
    }
    pos.lane = lane;
  }
  return pos;
}

/** 9F35 terminal type: second digit 1-3 attended, 4-6 unattended. */
function attendanceOf(terminalType: string): string | undefined {
  const operation = /^[0-9]{2}$/.test(terminalType) ? Number(terminalType[1]) : 0;
  if (operation >= 1 && operation <= 3) return 'ATTENDED';
  if (operation >= 4 && operation <= 6) return 'UNATTENDED';
  return undefined;
}

const KEY_ENTRY = 0x80;
const MAGNETIC_STRIPE = 0x40;
const CHIP = 0x20;

/**
 * 9F33 terminal capabilities, first byte (card data input): manual key entry, magnetic
 * stripe, IC with contacts. Chip with key entry but no stripe has no spec value: not filled.
 */
function inputCapabilityOf(capabilities: string): string | undefined {
  if (capabilities.length !== 6) {
    throw invalidSensitive(FIELD, 'EMV tag 9F33 is not terminal capabilities (3 bytes).');
  }
  const input = parseInt(capabilities.slice(0, 2), 16) & (KEY_ENTRY | MAGNETIC_STRIPE | CHIP);
  const byInput: Record<number, string> = {
    [CHIP | MAGNETIC_STRIPE | KEY_ENTRY]: 'CHIP_AND_KEY_ENTRY_AND_MAGNETIC_STRIPE',
    [CHIP | MAGNETIC_STRIPE]: 'CHIP_AND_MAGNETIC_STRIPE',
    [CHIP]: 'CHIP',
    [KEY_ENTRY | MAGNETIC_STRIPE]: 'KEY_ENTRY_AND_MAGNETIC_STRIPE',
    [KEY_ENTRY]: 'KEY_ENTRY',
    [MAGNETIC_STRIPE]: 'MAGNETIC_STRIPE',
  };
  return byInput[input];
}

function valueOf(tags: readonly EmvTag[], tag: string): string | undefined {
  return tags.find((t) => t.tag === tag)?.value;
}
