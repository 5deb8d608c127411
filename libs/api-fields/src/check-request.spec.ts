import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { checkRequest } from './check-request';
import {
  BooleanField,
  CustomFieldsField,
  DigitsField,
  DigitValueField,
  EnumField,
  GroupArrayField,
  GroupField,
  SignedDecInField,
  StringField,
} from './field-decorators';
import { FieldProblem } from './field-problem';
import { compileSchema, CrossFieldRules, describeRequest } from './request-schema';

class Expiry {
  @DigitValueField(1n, 12n, { required: true, label: 'Month' })
  month: string;

  @DigitsField(2, 2, { required: true })
  year: string;
}

class Card {
  @GroupField(() => Expiry)
  expiry?: Expiry;

  @DigitsField(9, 19, { sensitive: true, label: 'Card number' })
  number?: string;

  @DigitsField(3, 4, { sensitive: true })
  securityCode?: string;
}

class Item {
  @StringField(1, 127, { required: true })
  name: string;

  @SignedDecInField({ required: true })
  unitPrice: string;
}

class Order {
  @CustomFieldsField()
  custom?: Record<string, string>;

  @GroupArrayField(() => Item)
  item?: Item[];

  @StringField(1, 40)
  reference?: string;
}

const noZeroPrice = (request: Sample) =>
  request.order?.item?.some((i) => i.unitPrice === '0') ? new FieldProblem('order.item', 'INVALID', 'no free items') : null;

@CrossFieldRules<Sample>(noZeroPrice)
class Sample {
  @EnumField(['SAMPLE'], { required: true })
  apiOperation: 'SAMPLE';

  @GroupField(() => Card, { required: true })
  card: Card;

  @BooleanField()
  flag?: boolean;

  @GroupField(() => Order)
  order?: Order;
}

const valid = () => ({ apiOperation: 'SAMPLE', card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } });

function problem(body: unknown): FieldProblem {
  const result = checkRequest(Sample, body);
  if (!(result instanceof FieldProblem)) {
    throw new Error('expected a problem');
  }
  return result;
}

describe('checkRequest', () => {
  it('returns a typed instance of the class, nested groups included, values as sent', () => {
    const result = checkRequest(Sample, { ...valid(), order: { item: [{ name: 'a', unitPrice: '-1.50' }], custom: { giftWrap: 'yes' } } });
    expect(result).toBeInstanceOf(Sample);
    const sample = result as Sample;
    expect(sample.card).toBeInstanceOf(Card);
    expect(sample.card.expiry).toBeInstanceOf(Expiry);
    expect(sample.order!.item![0]).toBeInstanceOf(Item);
    expect(sample.order!.item![0].unitPrice).toBe('-1.50');
    expect(sample.order!.custom).toEqual({ giftWrap: 'yes' });
  });

  it('reports an unknown field as UNSUPPORTED with its full path, inside arrays too (0-based)', () => {
    const body = { ...valid(), order: { item: [{ name: 'a', unitPrice: '1' }, { name: 'b', unitPrice: '1', colour: 'red' }] } };
    expect(problem(body)).toEqual({
      field: 'order.item[1].colour',
      validationType: 'UNSUPPORTED',
      explanation: 'Field order.item[1].colour is not supported for this operation.',
    });
  });

  it('reports unknown fields before missing or invalid ones, wherever they are', () => {
    expect(problem({ apiOperation: 'SAMPLE', card: { number: 'x', zzz: 1 } }).field).toBe('card.zzz');
    expect(problem({ apiOperation: 'SAMPLE', zzz: 1 }).validationType).toBe('UNSUPPORTED');
  });

  it('reports the alphabetically first unknown field, whatever the order of keys in the body', () => {
    expect(problem({ ...valid(), zeta: 1, alpha: 1 }).field).toBe('alpha');
    expect(problem({ alpha: 1, ...valid(), zeta: 1 }).field).toBe('alpha');
  });

  it('reports a missing REQUIRED field as MISSING', () => {
    expect(problem({ apiOperation: 'SAMPLE' })).toEqual({ field: 'card', validationType: 'MISSING', explanation: 'Missing parameter card.' });
  });

  it('names the fields a missing REQUIRED group must hold, and what a group sent as a scalar must hold', () => {
    class WithExpiry {
      @GroupField(() => Expiry, { required: true })
      expiry: Expiry;
    }
    expect(checkRequest(WithExpiry, {})).toEqual({
      field: 'expiry',
      validationType: 'MISSING',
      explanation: 'Missing parameter expiry. It must hold expiry.month and expiry.year.',
    });
    // "0139", as a token response shows an expiry, or "1/39": not echoed (a group's value may hold anything).
    expect(problem({ apiOperation: 'SAMPLE', card: { expiry: '0139' } })).toEqual({
      field: 'card.expiry',
      validationType: 'INVALID',
      explanation: 'Value is invalid. expiry must be a JSON object with month and year.',
    });
    // A group with no REQUIRED fields says no more than that.
    expect(problem({ ...valid(), order: 'x' }).explanation).toBe('Value is invalid. order must be a JSON object.');
  });

  it('requires REQUIRED-within-group fields only when their group is present', () => {
    expect(checkRequest(Sample, { apiOperation: 'SAMPLE', card: { number: '5123450000000008' } })).toBeInstanceOf(Sample);
    expect(problem({ apiOperation: 'SAMPLE', card: { expiry: { year: '39' } } })).toEqual({
      field: 'card.expiry.month',
      validationType: 'MISSING',
      explanation: 'Missing parameter card.expiry.month. It is required when card.expiry is present.',
    });
  });

  it('reports fields in alphabetical order of their paths, MISSING and INVALID alike', () => {
    const body = { apiOperation: 'SAMPLE', card: { number: 'x', expiry: { year: '3' } }, flag: 'yes' };
    expect(problem(body).field).toBe('card.expiry.month');
    expect(problem({ ...body, card: { number: 'x', expiry: { month: '1', year: '3' } } }).field).toBe('card.expiry.year');
    expect(problem({ ...body, card: { number: 'x' } }).field).toBe('card.number');
    expect(problem({ ...body, card: {} }).field).toBe('flag');
  });

  it('reports fields in alphabetical order whatever order the class declares them in', () => {
    class Backwards {
      @StringField(1, 3)
      zeta?: string;

      @StringField(1, 3, { required: true })
      alpha: string;
    }
    expect(checkRequest(Backwards, { zeta: 'toolong' })).toMatchObject({ field: 'alpha', validationType: 'MISSING' });
    expect(describeRequest(Backwards).map((f) => f.path)).toEqual(['alpha', 'zeta']);
  });

  it('checks a field a subclass declares again with the type the subclass gives it', () => {
    class Base {
      @StringField(1, 40)
      reference?: string;
    }
    class Narrow extends Base {}
    StringField(1, 3)(Narrow.prototype, 'reference');
    expect(checkRequest(Base, { reference: 'abcd' })).toBeInstanceOf(Base);
    expect(checkRequest(Narrow, { reference: 'abcd' })).toMatchObject({ field: 'reference', validationType: 'INVALID' });
  });

  it('treats wrong JSON types as INVALID: a number for digits, a string for a Boolean, a scalar for a group', () => {
    expect(problem({ apiOperation: 'SAMPLE', card: { expiry: { month: 1, year: '39' } } })).toEqual({
      field: 'card.expiry.month',
      validationType: 'INVALID',
      explanation: "Value '1' is invalid. Month must be a JSON string of digits, not a number.",
    });
    expect(problem({ ...valid(), flag: 'true' })).toMatchObject({ field: 'flag', validationType: 'INVALID' });
    expect(problem({ ...valid(), order: 'x' })).toMatchObject({ field: 'order', validationType: 'INVALID' });
    expect(problem({ ...valid(), order: { item: {} } })).toMatchObject({ field: 'order.item', validationType: 'INVALID' });
    expect(problem({ ...valid(), order: { item: [] } })).toMatchObject({ field: 'order.item', validationType: 'INVALID' });
    expect(problem({ ...valid(), order: { item: ['x'] } })).toMatchObject({ field: 'order.item[0]', validationType: 'INVALID' });
    expect(problem({ ...valid(), flag: null })).toMatchObject({ field: 'flag', validationType: 'INVALID' });
  });

  it('explains an invalid value with the value and what is wrong', () => {
    expect(problem({ apiOperation: 'SAMPLE', card: { expiry: { month: '13', year: '39' } } }).explanation).toBe(
      "Value '13' is invalid. Month must be between 1 and 12.",
    );
  });

  it('never echoes a sensitive value, nor the content of a group given the wrong type', () => {
    const cardNumber = '51234500000000081';
    const number = problem({ apiOperation: 'SAMPLE', card: { number: `${cardNumber}xx` } });
    expect(number).toMatchObject({ field: 'card.number', validationType: 'INVALID' });
    expect(number.explanation).toBe('Value is invalid. Card number must be 9 to 19 characters from 0-9.');
    const code = problem({ apiOperation: 'SAMPLE', card: { securityCode: 12345 } });
    expect(code.explanation).not.toContain('12345');
    const group = problem({ apiOperation: 'SAMPLE', card: '5123450000000008' });
    expect(group.explanation).not.toContain('5123450000000008');
    // Nor an array element that is not an object: it may hold anything too.
    expect(problem({ ...valid(), order: { item: ['1 x gift card, code 0123-4567'] } })).toEqual({
      field: 'order.item[0]',
      validationType: 'INVALID',
      explanation: 'Value is invalid. item[0] must be a JSON object.',
    });
  });

  it('masks anything that looks like a card number in an echoed value or field name', () => {
    const reference = problem({ ...valid(), order: { reference: `card 5123450000000008 ${'x'.repeat(30)}` } });
    expect(reference.explanation).toContain('512345xxxxxx0008');
    expect(reference.explanation).not.toContain('5123450000000008');
    const name = problem({ ...valid(), '5123450000000008': 1 });
    expect(name.field).toBe('512345xxxxxx0008');
  });

  it('validates order.custom.<name>: names of A-Z a-z 0-9 under 100 characters, values 1-250, at most 50', () => {
    const withCustom = (custom: unknown) => ({ ...valid(), order: { custom } });
    expect(checkRequest(Sample, withCustom({ giftWrap: 'x'.repeat(250), [`a${'b'.repeat(98)}`]: 'y' }))).toBeInstanceOf(Sample);
    expect(problem(withCustom({ giftWrap: '' }))).toMatchObject({ field: 'order.custom.giftWrap', validationType: 'INVALID' });
    expect(problem(withCustom({ giftWrap: 'x'.repeat(251) }))).toMatchObject({ field: 'order.custom.giftWrap' });
    expect(problem(withCustom({ giftWrap: true }))).toMatchObject({ field: 'order.custom.giftWrap' });
    expect(problem(withCustom({ 'gift-wrap': 'yes' }))).toMatchObject({ field: 'order.custom.gift-wrap', validationType: 'INVALID' });
    expect(problem(withCustom({ [`a${'b'.repeat(99)}`]: 'y' }))).toMatchObject({ validationType: 'INVALID' });
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${i}`, 'v']));
    expect(checkRequest(Sample, withCustom(fifty))).toBeInstanceOf(Sample);
    expect(problem(withCustom({ ...fifty, f50: 'v' }))).toMatchObject({ field: 'order.custom', validationType: 'INVALID' });
  });

  it('runs cross-field rules last, on the typed request', () => {
    const body = { ...valid(), order: { item: [{ name: 'a', unitPrice: '0' }] } };
    expect(problem(body)).toEqual({ field: 'order.item', validationType: 'INVALID', explanation: 'no free items' });
    expect(problem({ ...body, flag: 'x' }).field).toBe('flag');
  });

  it('does not read inherited object properties as fields', () => {
    const body = Object.assign(Object.create({ flag: 'inherited' }), valid());
    expect(checkRequest(Sample, body)).toBeInstanceOf(Sample);
  });

  it('compiles a class once and reuses it for every request', () => {
    expect(compileSchema(Sample)).toBe(compileSchema(Sample));
  });

  it('describes every field with its full path', () => {
    expect(describeRequest(Sample).map((f) => `${f.path} ${f.notation}${f.required ? ' REQUIRED' : ''}`)).toEqual([
      'apiOperation Enum(SAMPLE) REQUIRED',
      'card group REQUIRED',
      'card.expiry group',
      'card.expiry.month Digits(value 1-12) REQUIRED',
      'card.expiry.year Digits(2-2) REQUIRED',
      'card.number Digits(9-19)',
      'card.securityCode Digits(3-4)',
      'flag Boolean',
      'order group',
      'order.custom.<name> String(1-250)',
      'order.item[n] group[]',
      'order.item[n].name String(1-127) REQUIRED',
      'order.item[n].unitPrice DecIn(signed) REQUIRED',
      'order.reference String(1-40)',
    ]);
  });

  it('registers the same checks with class-validator', () => {
    const options = { whitelist: true, forbidNonWhitelisted: true };
    expect(validateSync(plainToInstance(Sample, valid()), options)).toEqual([]);
    const errors = validateSync(plainToInstance(Sample, { ...valid(), card: { expiry: { month: '13', year: '39' } }, extra: 1 }), options);
    expect(errors.map((e) => e.property).sort()).toEqual(['card', 'extra']);
  });
});
