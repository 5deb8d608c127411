import { findInDump } from './schema-dump';
import { TEST_CARD } from './test-cards';

describe('findInDump', () => {
  const hex = (text: string) => Buffer.from(text).toString('hex');

  it('finds a value in clear text and in clear inside bytea hex', () => {
    expect(findInDump(`1\t{"n":"${TEST_CARD}"}\n`, [{ what: 'card', text: TEST_CARD }])).toEqual(['card in clear text']);
    expect(findInDump(`1\t\\\\x01ab${hex(TEST_CARD)}ff\n`, [{ what: 'card', text: TEST_CARD }])).toEqual(['card in clear inside a bytea value']);
  });

  it('finds short values only as whole fields or JSON strings', () => {
    const needle = [{ what: 'code', text: '7319', wholeField: true }];
    expect(findInDump('a1b27319c-uuid\t2026-01-01 10:00:00.731900+00\n', needle)).toEqual([]);
    expect(findInDump('x\t7319\ty\n', needle)).toEqual(['code in clear text']);
    expect(findInDump('x\t{"securityCode":"7319"}\n', needle)).toEqual(['code in clear text']);
  });

  it('leaves bytea values alone for text-only values, whose hex random bytes hold by chance', () => {
    const dump = `1\t\\\\x01ab${hex('100')}ff\n`;
    expect(findInDump(dump, [{ what: 'code', text: '100', wholeField: true }])).toEqual(['code in clear inside a bytea value']);
    expect(findInDump(dump, [{ what: 'code', text: '100', wholeField: true, textOnly: true }])).toEqual([]);
    expect(findInDump('x\t100\ty\n', [{ what: 'code', text: '100', wholeField: true, textOnly: true }])).toEqual(['code in clear text']);
  });

  it('finds nothing in sealed values', () => {
    expect(findInDump(`1\t\\\\x0100000001a3f09c\t512345xxxxxx0008\n`, [{ what: 'card', text: TEST_CARD }])).toEqual([]);
  });
});
