import { QueryFailedError } from 'typeorm';
import { isDeadlockOrSerializationFailure } from './transaction-conflict';

describe('isDeadlockOrSerializationFailure', () => {
  const pgError = (code: string) => Object.assign(new Error(`sqlstate ${code}`), { code });

  it('is a deadlock victim or a serialization failure, as node-pg raises it or wrapped', () => {
    for (const code of ['40P01', '40001']) {
      expect(isDeadlockOrSerializationFailure(pgError(code))).toBe(true);
      expect(isDeadlockOrSerializationFailure(new QueryFailedError('UPDATE x', [], pgError(code)))).toBe(
        true,
      );
      expect(isDeadlockOrSerializationFailure(new Error('erasure failed', { cause: pgError(code) }))).toBe(
        true,
      );
    }
  });

  it('is nothing else: the rest of class 40, a timeout, a constraint, no error at all', () => {
    for (const code of ['40000', '40002', '40003', '57014', '55P03', '23505', 'ECONNRESET']) {
      expect(isDeadlockOrSerializationFailure(pgError(code))).toBe(false);
    }
    for (const err of [new Error('deadlock detected'), undefined, null, '40P01', { code: 40001 }]) {
      expect(isDeadlockOrSerializationFailure(err)).toBe(false);
    }
  });
});
