import { testMerchant } from '../testing/vault-test-bed';
import { isUniqueAccount, repositoryPolicy } from './repository-policy';

describe('repositoryPolicy', () => {
  it('prefixes a test merchant\'s repository id with Test', () => {
    expect(repositoryPolicy(testMerchant({ id: '1000000001' })).id).toBe('Test1000000001');
    expect(repositoryPolicy(testMerchant({ id: '1000000001', mode: 'LIVE' })).id).toBe('1000000001');
  });
});

describe('isUniqueAccount', () => {
  it.each([
    ['UNIQUE_TOKEN', 'CARD', false],
    ['UNIQUE_TOKEN', 'PROVIDER_A', false],
    ['UNIQUE_CARD', 'CARD', true],
    ['UNIQUE_CARD', 'PROVIDER_A', false],
    ['UNIQUE_ACCOUNT_IDENTIFIER', 'CARD', true],
    ['UNIQUE_ACCOUNT_IDENTIFIER', 'PROVIDER_A', true],
  ] as const)('%s keeps %s identifiers unique: %s', (management, type, unique) => {
    expect(isUniqueAccount(management, type)).toBe(unique);
  });
});
