import { TEST_CARD, TEST_CARD_LUHN_FAILURE } from '@gateway/testing';
import { refusal } from '../../card-operation/testing-orders';
import { fillFromEmv, parseEmvRequest } from './emv-request.rule';

const FIELD = 'sourceOfFunds.provided.card.emvRequest';

function tlv(tag: string, value: string): string {
  return `${tag}${(value.length / 2).toString(16).padStart(2, '0').toUpperCase()}${value}`;
}

const ascii = (text: string) => Buffer.from(text, 'latin1').toString('hex').toUpperCase();

const CRYPTOGRAM = tlv('9F26', '1A2B3C4D5E6F7081');
const PAN = tlv('5A', TEST_CARD);
const EXPIRY = tlv('5F24', '390131');

describe('emvRequest', () => {
  it('reads the allowed tags and decodes the card number, expiry and sequence number', () => {
    const parsed = parseEmvRequest(CRYPTOGRAM + PAN + EXPIRY + tlv('5F34', '01'));
    expect(parsed.tags.map((t) => t.tag)).toEqual(['9F26', '5A', '5F24', '5F34']);
    expect(parsed.card).toEqual({
      number: TEST_CARD,
      expiry: { month: '1', year: '39' },
      sequenceNumber: '1',
    });
  });

  it('reads an odd-length card number padded with F', () => {
    expect(parseEmvRequest(tlv('5A', '5123450000000F')).card.number).toBe('5123450000000');
  });

  it('decodes the terminal fields: 9F35 attended, 9F33 input capability, 9F1C lane', () => {
    expect(
      parseEmvRequest(tlv('9F35', '22') + tlv('9F33', 'E0F8C8') + tlv('9F1C', ascii('LANE0001'))).posTerminal,
    ).toEqual({
      attended: 'ATTENDED',
      inputCapability: 'CHIP_AND_KEY_ENTRY_AND_MAGNETIC_STRIPE',
      lane: 'LANE0001',
    });
    expect(parseEmvRequest(tlv('9F35', '25') + tlv('9F33', '600000')).posTerminal).toEqual({
      attended: 'UNATTENDED',
      inputCapability: 'CHIP_AND_MAGNETIC_STRIPE',
    });
    expect(parseEmvRequest(tlv('9F33', '200000')).posTerminal).toEqual({ inputCapability: 'CHIP' });
    expect(parseEmvRequest(tlv('9F33', 'C00000')).posTerminal).toEqual({
      inputCapability: 'KEY_ENTRY_AND_MAGNETIC_STRIPE',
    });
    // Chip and key entry without a stripe reader has no spec value: not filled.
    expect(parseEmvRequest(tlv('9F33', 'A00000') + tlv('9F35', '99')).posTerminal).toEqual({});
  });

  it('keeps the data without the PCI-sensitive PAN and expiry tags, for the response and the acquirer', () => {
    expect(parseEmvRequest(PAN + CRYPTOGRAM + EXPIRY).withoutSensitiveTags).toBe(CRYPTOGRAM);
    expect(parseEmvRequest(PAN + EXPIRY).withoutSensitiveTags).toBeUndefined();
  });

  it('accepts lower-case hex and long-form lengths, and re-encodes them canonically', () => {
    const long = `9F1081${'05'}0102030405`;
    expect(parseEmvRequest(long.toLowerCase()).withoutSensitiveTags).toBe(tlv('9F10', '0102030405'));
  });

  it.each([
    ['track 2 equivalent data', tlv('57', '5123450000000008D39011'), 'EMV tag 57 is not supported.'],
    ['the cardholder name', tlv('5F20', ascii('A PAYER')), 'EMV tag 5F20 is not supported.'],
    ['an unknown tag', tlv('9F7F', '00'), 'EMV tag 9F7F is not supported.'],
    ['a template', tlv('70', CRYPTOGRAM), 'EMV tag 70 is not supported.'],
  ])('rejects %s', (_what, emvRequest, reason) => {
    const error = refusal(() => parseEmvRequest(CRYPTOGRAM + emvRequest));
    expect(error).toMatchObject({ code: 'INVALID_FIELD', field: FIELD, validationType: 'INVALID' });
    expect(error.explanation).toBe(`Value is invalid. ${reason}`);
  });

  it.each([
    ['not hex', 'ZZ'],
    ['an odd number of hex digits', '9F2'],
    ['a value longer than the data', '9F2608AABB'],
    ['a tag cut short', '9F'],
    ['a missing length', '9F26'],
    ['an invalid long-form length', '9F26830000000000'],
    ['a repeated tag', CRYPTOGRAM + CRYPTOGRAM],
    ['a PAN tag that is not a card number', tlv('5A', '1234')],
    ['an expiry tag with month 13', tlv('5F24', '391331')],
    ['terminal capabilities of the wrong size', tlv('9F33', 'E0')],
  ])('rejects %s without echoing the value', (_what, emvRequest) => {
    const error = refusal(() => parseEmvRequest(emvRequest + PAN));
    expect(error).toMatchObject({ field: FIELD, validationType: 'INVALID' });
    expect(JSON.stringify(error.toResponseBody())).not.toContain(TEST_CARD);
    expect(error.explanation).toMatch(/^Value is invalid\. /);
  });

  it('rejects a PAN tag failing Luhn, as the card number field does, without echoing it', () => {
    const error = refusal(() => parseEmvRequest(tlv('5A', TEST_CARD_LUHN_FAILURE) + EXPIRY));
    expect(error).toMatchObject({ field: FIELD, validationType: 'INVALID', explanation: 'Value is invalid. EMV tag 5A is not a card number.' });
    expect(JSON.stringify(error.toResponseBody())).not.toContain(TEST_CARD_LUHN_FAILURE);
  });

  it('fills only the explicit fields the request left out, without checking the ones it gave', () => {
    const emv = parseEmvRequest(PAN + EXPIRY + tlv('9F35', '22') + tlv('9F1C', ascii('LANE0001')));
    const filled = fillFromEmv(
      { expiry: { month: '5', year: '39' }, securityCode: '100' },
      { lane: '7' },
      emv,
    );
    expect(filled.card).toEqual({
      number: TEST_CARD,
      expiry: { month: '5', year: '39' },
      securityCode: '100',
    });
    expect(filled.posTerminal).toEqual({ lane: '7', attended: 'ATTENDED' });
  });

  it('leaves posTerminal absent when no terminal tag was given', () => {
    const filled = fillFromEmv({}, undefined, parseEmvRequest(PAN));
    expect(filled.posTerminal).toBeUndefined();
    expect(filled.card.number).toBe(TEST_CARD);
  });
});
