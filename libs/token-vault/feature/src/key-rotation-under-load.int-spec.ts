import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { DataSource } from 'typeorm';
import { VERIFY_WIRE } from '@gateway/acquirer';
import { AcquirerCallReply, defaultMerchantSettings, MerchantContext, OperationReply, SealCardReply, SUBJECTS } from '@gateway/contracts';
import { MasterKeyRing } from '@gateway/crypto';
import { createLogger, createMessageClient, createServiceDataSource, describeConfig, loadConfig, MessageBus, MessagingOptions, Metrics } from '@gateway/platform';
import { createDatabase, dropDatabase, keptForAtRestScan, newRunId, TEST_CARD, TEST_CARD_SECOND, TEST_EXPIRY, testInfra } from '@gateway/testing';
import { DataKeyRepository, TOKEN_VAULT_SCHEMA, TokenRepository } from '@gateway/token-vault/data-access';
import { TokenSealing } from '@gateway/token-vault/domain';
import { rotateVaultKeys } from './rotate-keys.command';
import { TokenVaultConfig } from './token-vault.config';
import { runKey, startVaultApp, VaultApp } from './testing/vault-app';

/**
 * Issue 10, "key rotation under load": replicas of the vault serve a steady stream of token
 * saves, retrievals and acquirer calls that open stored and session cards, over NATS (one queue
 * group, as deployed), while the data key is rotated and then the master key, following
 * docs/operations/token-vault-key-rotation.md step by step (rolling restarts included). Not one
 * request may fail; afterwards every card reads with the new master key alone, and no key
 * material appears in any log line, configuration dump or reply.
 */

const database = `${process.env.TEST_DATABASE}_rotation_load`;
const subjectPrefix = `t${newRunId()}.`;
const OLD_MASTER = `old:${runKey('load-master-old')}`;
const NEW_MASTER = `new:${runKey('load-master-new')}`;
const FINGERPRINT_KEY = runKey('fingerprint');
const WORKERS = 3;
const TOKENS_PER_WORKER = 12;

const merchant: MerchantContext = {
  id: 'INTROTLOAD',
  mode: 'TEST',
  settings: { ...defaultMerchantSettings(), tokenRepository: { ...defaultMerchantSettings().tokenRepository, generation: 'MERCHANT_SUPPLIED' } },
};
const REPOSITORY = `Test${merchant.settings.tokenRepository.id}`;

let url: string;
const replicas: VaultApp[] = [];
const retired: VaultApp[] = [];
/** What each token holds: its card number, as last saved successfully. */
const expected = new Map<string, string>();
const failures: string[] = [];
/** The step of the rotation under way, named in failures. */
let phase = 'warm-up';
const counts = { save: 0, retrieve: 0, tokenCall: 0, sessionCall: 0 };
const rotationLogs: string[] = [];
let clientLogs: string[] = [];
let bus: MessageBus;
let closeClient: () => Promise<unknown> = async () => undefined;

function vaultEnv(masterKeys: string): Record<string, string> {
  return {
    GATEWAY_PROFILE: 'distributed',
    NATS_URL: testInfra.natsUrl,
    NATS_SUBJECT_PREFIX: subjectPrefix,
    NATS_REQUEST_TIMEOUT_MS: '5000',
    DATABASE_URL: url,
    VAULT_MASTER_KEYS: masterKeys,
    VAULT_FINGERPRINT_KEY: FINGERPRINT_KEY,
    VAULT_KEY_REFRESH_MS: '1000',
    VAULT_REENCRYPT_BATCH_SIZE: '5',
  };
}

function configWith(masterKeys: string): TokenVaultConfig {
  return loadConfig(TokenVaultConfig, vaultEnv(masterKeys));
}

function capture(lines: string[]): Writable {
  return new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
}

/** The rotate-keys command as an operator runs it, beside the serving replicas. */
async function runRotation(masterKeys: string, options: { rewrapOnly?: boolean } = {}) {
  const dataSource = await createServiceDataSource(TOKEN_VAULT_SCHEMA, { url, poolSize: 3, statementTimeoutMs: 30_000, applicationName: 'int-rotation-load' }).initialize();
  try {
    const logger = createLogger({ service: 'rotate-keys', level: 'info', destination: capture(rotationLogs) });
    return await rotateVaultKeys(dataSource, configWith(masterKeys), options, logger);
  } finally {
    await dataSource.destroy();
  }
}

/** A rolling restart onto new configuration: the new replica joins the queue group before the old one drains. */
async function rollTo(masterKeys: string): Promise<void> {
  const next = await startVaultApp(vaultEnv(masterKeys));
  const previous = replicas.splice(0, replicas.length, next);
  for (const replica of previous) {
    await replica.close();
    retired.push(replica);
  }
}

function envelope() {
  return { merchant, apiVersion: 100, requestId: `load-${randomBytes(4).toString('hex')}`, authMethod: 'PASSWORD' };
}

async function attempt(what: string, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    const supportCode = (err as { supportCode?: string }).supportCode;
    failures.push(`${phase}, ${what}: ${err instanceof Error ? `${err.name} ${err.message}` : JSON.stringify(err)}${supportCode ? ` [${supportCode}]` : ''}`);
  }
}

/** One worker's loop: save, retrieve, a VERIFY on the stored card, a session card sealed and used. */
async function worker(id: number, running: () => boolean): Promise<void> {
  for (let i = 0; running(); i++) {
    const token = `load${id}x${i % TOKENS_PER_WORKER}`;
    const number = (i + id) % 2 ? TEST_CARD : TEST_CARD_SECOND;
    await attempt(`save ${token}`, async () => {
      const body = { sourceOfFunds: { type: 'CARD', provided: { card: { number, expiry: TEST_EXPIRY.APPROVED } } } };
      const reply = await bus.request<OperationReply>(SUBJECTS.tokenVault.saveToken, { envelope: envelope(), tokenId: token, body });
      if (reply.body.result !== 'SUCCESS') throw new Error(`result ${String(reply.body.result)}`);
      expected.set(token, number);
      counts.save++;
    });
    await attempt(`retrieve ${token}`, async () => {
      const reply = await bus.request<OperationReply>(SUBJECTS.tokenVault.retrieveToken, { envelope: envelope(), tokenId: token });
      const shown = JSON.stringify(reply.body);
      if (!shown.includes(`xxxxxx${number.slice(-4)}`)) throw new Error('the token does not show its card');
      counts.retrieve++;
    });
    await attempt(`verify on ${token}`, async () => {
      const reply = await bus.request<AcquirerCallReply>(SUBJECTS.tokenVault.acquirerCall, {
        envelope: envelope(),
        operation: 'VERIFY',
        source: { token },
        request: VERIFY_WIRE.encodeRequest({ merchantId: merchant.id, orderId: `load-${id}-${i}`, transactionId: 'verify', currency: 'USD' }),
      });
      // The acquirer sees the stored number: the Luhn-broken twin is declined, the test card approved.
      if (!reply.result || !reply.card?.number.endsWith(number.slice(-4))) throw new Error('the acquirer did not get the stored card');
      counts.tokenCall++;
    });
    await attempt(`session card ${id}/${i}`, async () => {
      const bindingId = `SESSION${id}X${i}`;
      const sealed = await bus.request<SealCardReply>(SUBJECTS.tokenVault.sealCard, {
        envelope: envelope(),
        bindingId,
        card: { number: TEST_CARD, expiry: TEST_EXPIRY.APPROVED },
      });
      const reply = await bus.request<AcquirerCallReply>(SUBJECTS.tokenVault.acquirerCall, {
        envelope: envelope(),
        operation: 'VERIFY',
        source: { sealed: { value: sealed.sealed, bindingId } },
        request: VERIFY_WIRE.encodeRequest({ merchantId: merchant.id, orderId: `load-s${id}-${i}`, transactionId: 'verify', currency: 'USD' }),
      });
      if (reply.result.gatewayCode !== 'APPROVED') throw new Error(`gatewayCode ${String(reply.result.gatewayCode)}`);
      counts.sessionCall++;
    });
  }
}

async function opsBeyond(total: number): Promise<void> {
  const target = Object.values(counts).reduce((a, b) => a + b, 0) + total;
  while (Object.values(counts).reduce((a, b) => a + b, 0) < target && failures.length === 0) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function tokenKeys(dataSource: DataSource): Promise<number[]> {
  const rows: { data_key_id: number }[] = await dataSource.query('SELECT DISTINCT data_key_id FROM token_vault.tokens ORDER BY 1');
  return rows.map((r) => r.data_key_id);
}

/** Every form in which a key could leak: the master keys, the fingerprint key, every data key (base64 and hex). */
async function keyMaterial(dataSource: DataSource): Promise<string[]> {
  const ring = MasterKeyRing.parse(`${NEW_MASTER},${OLD_MASTER}`);
  const wrapped = await DataKeyRepository.over(dataSource).list();
  const dataKeys = wrapped.map((entry) => ring.unwrap(entry.id, entry).reveal());
  return [
    ...[OLD_MASTER, NEW_MASTER].map((k) => k.slice(k.indexOf(':') + 1)),
    FINGERPRINT_KEY,
    ...dataKeys.flatMap((key) => [key.toString('base64'), key.toString('hex'), key.toString('base64url')]),
  ];
}

beforeAll(async () => {
  url = await createDatabase(database);
  replicas.push(await startVaultApp(vaultEnv(OLD_MASTER)), await startVaultApp(vaultEnv(OLD_MASTER)));
  const options: MessagingOptions = { profile: 'distributed', servers: [testInfra.natsUrl], subjectPrefix, requestTimeoutMs: 5_000, serviceName: 'rotation-load' };
  clientLogs = [];
  const logger = createLogger({ service: 'rotation-load', level: 'info', destination: capture(clientLogs) });
  const client = createMessageClient(options);
  closeClient = () => client.close() as Promise<unknown>;
  bus = new MessageBus(client, options, logger, new Metrics());
}, 60_000);

afterAll(async () => {
  await closeClient();
  for (const replica of replicas) {
    await replica.close();
  }
  if (!process.env.TEST_KEEP_DATABASE && !keptForAtRestScan()) {
    await dropDatabase(database);
  }
});

describe('key rotation under load (vault replicas on NATS, Postgres)', () => {
  it('rotates the data key, then the master key with rolling restarts, without one failed request; the old master key is then removable', async () => {
    let running = true;
    const traffic = Promise.all(Array.from({ length: WORKERS }, (_, id) => worker(id, () => running)));
    try {
      await opsBeyond(40);

      // (a) The routine data key rotation, both replicas serving.
      phase = 'data key rotation';
      const dataKeyRotation = await runRotation(OLD_MASTER);
      expect(dataKeyRotation).toMatchObject({ newDataKey: 2, activeDataKey: 2, remaining: 0 });
      await opsBeyond(40);

      // (b) The master key, as the runbook says: roll out new+old, rotate (re-wrap, then a new
      // data key and re-encryption of every token), roll out the new key alone.
      phase = 'rolling out new+old master keys';
      await rollTo(`${NEW_MASTER},${OLD_MASTER}`);
      await opsBeyond(20);
      phase = 'master key rotation';
      const masterRotation = await runRotation(`${NEW_MASTER},${OLD_MASTER}`);
      expect(masterRotation).toMatchObject({ rewrapped: [1, 2], newDataKey: 3, activeDataKey: 3, remaining: 0 });
      await opsBeyond(20);
      phase = 'rolling out the new master key alone';
      await rollTo(NEW_MASTER);
      await opsBeyond(40);
    } finally {
      running = false;
      await traffic;
    }

    // A server failure is shown with the cause its replica logged under the support code.
    const vaultLogs = [...retired, ...replicas].flatMap((r) => r.logs);
    const explained = failures.map((f) => {
      const code = /\[([0-9A-F]{12})\]$/.exec(f)?.[1];
      const line = code && vaultLogs.find((l) => l.includes(code));
      return line ? `${f}: ${(JSON.parse(line) as { err?: { message?: string } }).err?.message}` : f;
    });
    expect(explained).toEqual([]);
    expect(Math.min(...Object.values(counts))).toBeGreaterThan(20);

    // Every card reads on a replica that has only the new master key.
    const [current] = replicas;
    expect(await tokenKeys(current.dataSource)).toEqual([3]);
    expect(await current.dataSource.query('SELECT DISTINCT master_key_id FROM token_vault.data_keys')).toEqual([{ master_key_id: 'new' }]);
    const repository = TokenRepository.over(current.dataSource);
    const sealing = current.get(TokenSealing);
    expect(expected.size).toBe(WORKERS * TOKENS_PER_WORKER);
    for (const [token, number] of expected) {
      const record = (await repository.findByToken(REPOSITORY, token))!;
      const instrument = await sealing.openInstrument(record);
      expect({ token, number: instrument.type === 'CARD' ? instrument.pan.reveal() : null }).toEqual({ token, number });
    }

    // No key material in any log line (replicas, rotation command, client) or configuration dump.
    const material = await keyMaterial(current.dataSource);
    const written = [
      ...[...retired, ...replicas].flatMap((r) => r.logs),
      ...rotationLogs,
      ...clientLogs,
      ...[...retired, ...replicas].map((r) => JSON.stringify(describeConfig(TokenVaultConfig, r.config))),
    ];
    expect(rotationLogs.length).toBeGreaterThan(0);
    const leaks = written.filter((line) => material.some((key) => line.includes(key)));
    expect(leaks).toEqual([]);
  }, 120_000);
});
