/**
 * Cost of checking one VERIFY's messages the way the services do (parseMessage: class-transformer
 * then class-validator) on one core, without and with the validation metadata cache
 * (libs/platform/src/validation/validation-metadata-cache.ts), each in a fresh process:
 *   node -r ./tools/scripts/register-ts.cjs tools/bench/micro/message-parsing.ts
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { BeginOperationMessage, defaultMerchantSettings, OrderOperationMessage, RecordOperationMessage } from '@gateway/contracts';
import { parseMessage, RequestHasher } from '@gateway/platform';
import { installValidationMetadataCache } from '../../../libs/platform/src/validation/validation-metadata-cache';

const envelope = { merchant: { id: 'BENCH1', mode: 'TEST', settings: defaultMerchantSettings() }, apiVersion: 100, requestId: 'r-1', authMethod: 'PASSWORD', fencingToken: '7' };
const card = { number: '5123450000000008', expiry: { month: '1', year: '39' }, securityCode: '100' };
const body = { apiOperation: 'VERIFY', order: { currency: 'USD' }, sourceOfFunds: { type: 'CARD', provided: { card } } };
const requestHash = RequestHasher.fromText(randomBytes(32).toString('base64')).hash(body);
// A VERIFY's response body as verification sends it to the ledger (about 1.6 kB of JSON).
const VERIFY_RESPONSE = {
  result: 'SUCCESS',
  order: { id: 'o-1', amount: '0.00', currency: 'USD', status: 'VERIFIED', creationTime: '2026-11-22T00:00:00.000Z', lastUpdatedTime: '2026-11-22T00:00:00.000Z', totalAuthorizedAmount: '0.00', totalCapturedAmount: '0.00', totalRefundedAmount: '0.00' },
  response: {
    gatewayCode: 'APPROVED',
    gatewayRecommendation: 'NO_ACTION',
    acquirerCode: '00',
    acquirerMessage: 'Approved',
    cardSecurityCode: { gatewayCode: 'MATCH', acquirerCode: 'M' },
    cardholderVerification: { avs: { gatewayCode: 'NOT_REQUESTED', acquirerCode: 'N' } },
  },
  sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008', expiry: { month: '1', year: '39' }, brand: 'MASTERCARD', fundingMethod: 'CREDIT', scheme: 'MASTERCARD' } } },
  transaction: {
    id: 't-1',
    type: 'VERIFICATION',
    amount: '0.00',
    currency: 'USD',
    source: 'INTERNET',
    acquirer: { id: 'TEST', merchantId: 'BENCH1', transactionId: '123456', batch: 1, date: '1122', timeZone: '+0000' },
    authorizationCode: '123456',
    receipt: '123456789012',
    terminal: '1234',
    frequency: 'SINGLE',
    stan: '123',
  },
  gatewayEntryPoint: 'WEB_SERVICES_API',
  timeOfLastUpdate: '2026-11-22T00:00:00.000Z',
  timeOfRecord: '2026-11-22T00:00:00.000Z',
};
// The three messages of one VERIFY: the edge's to verification, then verification's two to the ledger.
const MESSAGES: [new () => object, unknown][] = [
  [OrderOperationMessage, { envelope, apiOperation: 'VERIFY', orderId: 'o-1', transactionId: 't-1', body }],
  [BeginOperationMessage, { envelope, orderId: 'o-1', transactionId: 't-1', apiOperation: 'VERIFY', requestHash, mode: 'CREATE' }],
  [
    RecordOperationMessage,
    {
      envelope,
      orderId: 'o-1',
      transactionId: 't-1',
      apiOperation: 'VERIFY',
      requestHash,
      mode: 'CREATE',
      order: { currency: 'USD' },
      transaction: { type: 'VERIFICATION', amount: '0.00', currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED', fundingType: 'CARD' },
      response: VERIFY_RESPONSE,
    },
  ],
];

function measure(): number {
  const once = () => MESSAGES.forEach(([type, data]) => parseMessage(type, JSON.parse(JSON.stringify(data))));
  for (let i = 0; i < 5_000; i++) once();
  const rounds = 30_000;
  const started = performance.now();
  for (let i = 0; i < rounds; i++) once();
  return ((performance.now() - started) * 1000) / rounds;
}

if (process.argv[2] === '--one') {
  if (process.argv[3] === 'cached') installValidationMetadataCache();
  process.stdout.write(String(measure()));
} else {
  const run = (mode: string) =>
    Number(execFileSync(process.execPath, ['-r', './tools/scripts/register-ts.cjs', __filename, '--one', mode], { encoding: 'utf8' }));
  const [plain, cached] = [run('plain'), run('cached')];
  console.log(`the three messages of one VERIFY: ${plain.toFixed(1)} µs without the cache, ${cached.toFixed(1)} µs with it (${Math.round((100 * (plain - cached)) / plain)}% less)`);
}
