/**
 * CPU of the ledger's domain work per record that docs/performance.md's profiles name
 * (order-state derivation with decimal.js, and the copy that redacts card data): recording a
 * REFUND on a captured order (recordEntry: the derivation and every money rule) and completing
 * a REFUND's and a VERIFY's stored response (completeResponse, with redactCardData's copy).
 * Each case's µs per call, CPU of this process (process.cpuUsage), after 1,000 calls of warm-up:
 *   node -r ./tools/scripts/register-ts.cjs tools/bench/micro/ledger-domain.ts [rounds] [case]
 * For instruction counts on a shared host, run it under `valgrind --tool=callgrind` at two
 * rounds counts: the difference of the totals over the difference of the counts is the
 * instructions per round of the cases run, start-up and warm-up cancelled.
 */
import type { JsonObject } from '@gateway/contracts';
import { Money } from '@gateway/money';
import { LedgerEntry, recordEntry } from '@gateway/order-transaction/domain';
import { completeResponse } from '../../../libs/order-transaction/domain/src/ledger-response/complete-response';

const rounds = Number(process.argv[2] ?? 20_000);
/** Only the cases whose name contains this text (all when absent). */
const only = process.argv[3] ?? '';
const at = new Date('2026-11-27T00:00:00.000Z');
const order = {
  id: 'o-1',
  currency: 'USD',
  amount: Money.of('100.00', 'USD'),
  status: 'PARTIALLY_REFUNDED' as const,
  totalAuthorizedAmount: Money.of('100.00', 'USD'),
  totalCapturedAmount: Money.of('100.00', 'USD'),
  totalRefundedAmount: Money.of('10.00', 'USD'),
  createdAt: at,
  updatedAt: at,
};
const card = { number: '512345xxxxxx0008', expiry: { month: '1', year: '39' }, brand: 'MASTERCARD', fundingMethod: 'CREDIT', scheme: 'MASTERCARD' };
const acquirer = { id: 'TEST', merchantId: 'BENCH1', transactionId: '123456', batch: 1, date: '1127', timeZone: '+0000' };
const response = (type: string): JsonObject => ({
  result: 'SUCCESS',
  order: { id: 'o-1', currency: 'USD' },
  response: { gatewayCode: 'APPROVED', gatewayRecommendation: 'NO_ACTION', acquirerCode: '00', acquirerMessage: 'Approved', cardSecurityCode: { gatewayCode: 'MATCH', acquirerCode: 'M' } },
  sourceOfFunds: { type: 'CARD', provided: { card } },
  transaction: { id: 't-2', type, amount: 10, currency: 'USD', source: 'INTERNET', acquirer, authorizationCode: '123456', receipt: '123456789012', terminal: '1234', stan: '123' },
  gatewayEntryPoint: 'WEB_SERVICES_API',
  timeOfLastUpdate: '2026-11-27T00:00:00.000Z',
});
const REFUND_RESPONSE = response('REFUND');
const VERIFY_RESPONSE = response('VERIFICATION');
const recorded = (type: 'REFUND' | 'VERIFICATION') => ({ id: 't-2', type, amount: Money.of('10.00', 'USD'), result: 'SUCCESS' as const, gatewayCode: 'APPROVED', targetTransactionId: null });

const cases: [string, () => unknown][] = [
  [
    'recordEntry, a REFUND on a captured order with one refund',
    () => {
      // Fresh entries each time, as each record reads them from its statement's rows.
      const before: LedgerEntry[] = [
        { type: 'AUTHORIZATION', amount: '100.00', result: 'SUCCESS', id: 't-a', targetTransactionId: null },
        { type: 'CAPTURE', amount: '100.00', result: 'SUCCESS', id: 't-c', targetTransactionId: 't-a' },
        { type: 'REFUND', amount: '10.00', result: 'SUCCESS', id: 't-1', targetTransactionId: 't-c' },
      ];
      return recordEntry('USD', before, { type: 'REFUND', amount: '10.00', result: 'SUCCESS', id: 't-2', targetTransactionId: 't-c' }, { excessiveRefundAllowed: false });
    },
  ],
  ['completeResponse, a REFUND', () => completeResponse(REFUND_RESPONSE, order, recorded('REFUND'), at)],
  ['completeResponse, a VERIFY', () => completeResponse(VERIFY_RESPONSE, { ...order, status: 'VERIFIED' as never }, recorded('VERIFICATION'), at)],
];

let sink: unknown;
for (const [name, run] of cases.filter(([name]) => name.includes(only))) {
  for (let i = 0; i < 1_000; i++) sink = run();
  const started = process.cpuUsage();
  for (let i = 0; i < rounds; i++) sink = run();
  const used = process.cpuUsage(started);
  console.log(`${name}: ${((used.user + used.system) / rounds).toFixed(2)} µs`);
}
if (sink === undefined) throw new Error('nothing ran');
