import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { defaultMerchantSettings, TokenRepositorySettings } from './merchant-context';

describe('TokenRepositorySettings', () => {
  const errorsFor = (id: string) =>
    validateSync(plainToInstance(TokenRepositorySettings, { ...defaultMerchantSettings().tokenRepository, id }));

  it('accepts a live repository id of 1 to 12 printable characters', () => {
    expect(errorsFor('1000000001')).toEqual([]);
    expect(errorsFor('ShopRepo-12')).toEqual([]);
  });

  it('refuses an id starting with Test: test repositories are the live id prefixed with Test', () => {
    expect(errorsFor('Test1000')).not.toEqual([]);
    expect(errorsFor('1234567890123')).not.toEqual([]);
  });
});
