import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ExplicitCardFields } from './card-custody.messages';

/** The test card (ARCHITECTURE.md's 512345xxxxxx0008) and its Luhn-broken twin (libs/testing). */
const CARD = '5123450000000008';
const LUHN_FAILURE = '5123450000000009';

const problems = (fields: object) => validateSync(plainToInstance(ExplicitCardFields, fields)).map((error) => error.property);

describe('ExplicitCardFields (what a service receives of a card the request gave)', () => {
  it('takes a card number passing Luhn, or none', () => {
    expect(problems({ number: CARD })).toEqual([]);
    expect(problems({})).toEqual([]);
  });

  it('refuses a number the request field would have refused: failing Luhn, too short or too long, not digits', () => {
    for (const number of [LUHN_FAILURE, '51234500', `${CARD}0000`, '512345000000000x', 5123450000000008]) {
      expect([number, problems({ number })]).toEqual([number, ['number']]);
    }
  });
});
