import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_CARD } from '@gateway/testing';
import { runTransactionsCommand, TransactionsLedger } from './transactions.command';

/**
 * `record-lost` lines refused before the ledger is read: the operator's terminal (and the Job's
 * log) never shows a card number a line holds where it should not.
 */
describe('transactions record-lost: a line refused before the ledger is read', () => {
  const unused = new Proxy(
    {},
    {
      get: () => () => {
        throw new Error('the ledger must not be used');
      },
    },
  );
  const ledger = { unresolved: unused, resolution: unused, lost: unused } as TransactionsLedger;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'record-lost-unit-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function recordLost(line: string) {
    const file = join(dir, 'records.jsonl');
    await writeFile(file, `${line}\n`);
    const out: string[] = [];
    const err: string[] = [];
    const code = await runTransactionsCommand(['record-lost', '--file', file], ledger, { out: (t) => out.push(t), err: (t) => err.push(t) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  const record = (fields: Record<string, unknown>) =>
    JSON.stringify({
      merchantId: 'M1',
      orderId: 'o-1',
      transactionId: 't-1',
      type: 'PAYMENT',
      amount: '12.50',
      currency: 'USD',
      gatewayCode: 'APPROVED',
      acquirer: { id: 'TEST_ACQUIRER', transactionId: 'MCC123' },
      time: '2026-11-26T10:15:00Z',
      ...fields,
    });

  it("a card number in the amount's place is named as the amount, masked (as every explanation is)", async () => {
    const run = await recordLost(record({ amount: TEST_CARD }));
    expect(run).toEqual({
      code: 2,
      out: '',
      err: "error: line 1: field 'amount': amount '512345xxxxxx0008' is invalid: Amounts are at most 1000000000000.\nerror: 1 bad line: nothing written",
    });
  });

  it('a line that is not JSON is refused without the part of it V8 would quote', async () => {
    const run = await recordLost(`{"card":{"number": x${TEST_CARD}}}`);
    expect(run).toEqual({ code: 2, out: '', err: 'error: line 1: not JSON (a line is one JSON object)\nerror: 1 bad line: nothing written' });
    expect(run.err).not.toMatch(/\d{7}/);
  });

  it('a line that is not JSON is told where, when V8 says so without quoting it', async () => {
    const run = await recordLost('{"merchantId":');
    expect(run).toMatchObject({ code: 2, err: expect.stringMatching(/^error: line 1: not JSON: Unexpected end of JSON input/) });
  });
});

/**
 * An option is read by its own subcommand or refused: parseArgs knows every subcommand's options,
 * so `resolve ... --dry-run` (record-lost's option) parsed, and the UNKNOWN transaction was
 * resolved for real with exit code 0. Refused with exit code 2, the ledger untouched.
 */
describe("transactions: another subcommand's option is a usage error, never ignored", () => {
  const unused = new Proxy(
    {},
    {
      get: () => () => {
        throw new Error('the ledger must not be used');
      },
    },
  );
  const ledger = { unresolved: unused, resolution: unused, lost: unused } as TransactionsLedger;
  const resolve = ['resolve', '--merchant', 'M1', '--order', 'o-1', '--transaction', 't-1', '--outcome', 'DECLINED'];

  async function run(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runTransactionsCommand(argv, ledger, { out: (t) => out.push(t), err: (t) => err.push(t) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it.each([
    [[...resolve, '--dry-run'], 'resolve does not take --dry-run'],
    [[...resolve, '--limit', '1'], 'resolve does not take --limit'],
    [[...resolve, 'APPROVED'], "resolve takes no argument, not 'APPROVED'"],
    [['record-lost', '--file', '-', '--merchant', 'M1'], 'record-lost does not take --merchant'],
    [['unresolved', '--outcome', 'DECLINED'], 'unresolved does not take --outcome'],
    [['unresolved', 'M1'], "unresolved takes no argument, not 'M1'"],
    [['resolv', '--merchant', 'M1'], "unknown command 'resolv'"],
  ])('refuses %j with exit code 2 before the ledger is used', async (argv, message) => {
    const result = await run(...argv);
    expect(result).toMatchObject({ code: 2, out: '' });
    expect(result.err).toBe(`error: ${message}. Run with --help.`);
  });
});
