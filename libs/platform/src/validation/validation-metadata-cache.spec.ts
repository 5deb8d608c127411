import { getMetadataStorage, IsInt, IsString, Min, ValidateNested, validateSync } from 'class-validator';
import { Type, plainToInstance } from 'class-transformer';
import { installValidationMetadataCache } from './validation-metadata-cache';

class Amount {
  @IsInt()
  @Min(1)
  minor!: number;
}

class Payment {
  @IsString()
  reference!: string;

  @ValidateNested()
  @Type(() => Amount)
  amount!: Amount;
}

const problems = (value: object) =>
  validateSync(value).flatMap((e) => [
    ...(e.constraints ? [`${e.property}:${Object.keys(e.constraints).join('+')}`] : []),
    ...(e.children ?? []).map((c) => `${e.property}.${c.property}:${Object.keys(c.constraints ?? {}).join('+')}`),
  ]);

describe('installValidationMetadataCache', () => {
  const storage = getMetadataStorage();
  beforeAll(() => installValidationMetadataCache());

  it('looks a class up once: the same rules come back for the same class and options', () => {
    const first = storage.getTargetValidationMetadatas(Payment, '', false, false);
    expect(storage.getTargetValidationMetadatas(Payment, '', false, false)).toBe(first);
    expect(storage.groupByPropertyName(first)).toBe(storage.groupByPropertyName(first));
    expect(storage.getTargetValidationMetadatas(Payment, '', false, false, ['other'])).not.toBe(first);
  });

  it('validates exactly as before, nested objects included', () => {
    expect(problems(plainToInstance(Payment, { reference: 'r-1', amount: { minor: 5 } }))).toEqual([]);
    expect(problems(plainToInstance(Payment, { reference: 7, amount: { minor: 0 } }))).toEqual(['reference:isString', 'amount.minor:min']);
  });

  it('applies a rule registered after a class was validated (and installing twice changes nothing)', () => {
    class Refund {
      @IsString()
      reason!: string;
    }
    expect(problems(plainToInstance(Refund, { reason: 'r', note: 3 }))).toEqual([]);
    installValidationMetadataCache();
    IsString()(Refund.prototype, 'note');
    expect(problems(plainToInstance(Refund, { reason: 'r', note: 3 }))).toEqual(['note:isString']);

    class PartialRefund extends Refund {
      @IsInt()
      part!: number;
    }
    expect(problems(plainToInstance(PartialRefund, { reason: 'r', note: 'n', part: 'x' }))).toEqual(['part:isInt']);
    expect(problems(plainToInstance(PartialRefund, { reason: 1, note: 'n', part: 2 }))).toEqual(['reason:isString']);
  });
});
