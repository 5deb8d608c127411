import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { DecryptionError } from './aes-gcm';
import { InMemoryDataKeyStore } from './in-memory-data-key-store';
import { MasterKeyRing } from './master-key-ring';
import { keyIdOf, VaultKeys } from './vault-keys';

const CARD = '5123450000000008';
const masterConfig = (...ids: string[]) => ids.map((id) => `${id}:${randomBytes(32).toString('base64')}`);

async function started(store: InMemoryDataKeyStore, masterKeys: string): Promise<VaultKeys> {
  const keys = new VaultKeys(store, MasterKeyRing.parse(masterKeys), { refreshIntervalMs: 0 });
  await keys.start();
  return keys;
}

describe('VaultKeys', () => {
  it('creates the first data key on a fresh vault, stored only wrapped', async () => {
    const store = new InMemoryDataKeyStore();
    const [master] = masterConfig('m1');
    const keys = await started(store, master);
    expect(keys.activeKeyId).toBe(1);
    expect(store.rows).toHaveLength(1);
    expect(store.rows[0]).toMatchObject({ id: 1, state: 'ACTIVE', masterKeyId: 'm1' });
    expect(store.rows[0].wrappedKey.length).toBeGreaterThan(32);
  });

  it('seals with the key id in front and opens with the same context only', async () => {
    const keys = await started(new InMemoryDataKeyStore(), masterConfig('m1')[0]);
    const sealer = keys.sealer();
    const sealed = sealer.seal(CARD, 'tokens/1/account');
    expect(sealed.includes(Buffer.from(CARD))).toBe(false);
    expect(keyIdOf(sealed)).toBe(sealer.keyId);
    expect((await keys.open(sealed, 'tokens/1/account')).toString()).toBe(CARD);
    await expect(keys.open(sealed, 'tokens/2/account')).rejects.toThrow(DecryptionError);
  });

  it('detects tampering anywhere in a ciphertext (GCM authentication)', async () => {
    const keys = await started(new InMemoryDataKeyStore(), masterConfig('m1')[0]);
    const sealed = keys.sealer().seal(CARD, 'ctx');
    for (let i = 5; i < sealed.length; i++) {
      const tampered = Buffer.from(sealed);
      tampered[i] ^= 0x80;
      await expect(keys.open(tampered, 'ctx')).rejects.toMatchObject({ reason: 'AUTHENTICATION_FAILED' });
    }
    const truncated = sealed.subarray(0, sealed.length - 1);
    await expect(keys.open(truncated, 'ctx')).rejects.toMatchObject({ reason: 'AUTHENTICATION_FAILED' });
    await expect(keys.open(sealed.subarray(0, 20), 'ctx')).rejects.toMatchObject({ reason: 'MALFORMED' });
  });

  it('rejects a ciphertext whose key id was changed, and unknown formats', async () => {
    const store = new InMemoryDataKeyStore();
    const keys = await started(store, masterConfig('m1')[0]);
    const sealed = keys.sealer().seal(CARD, 'ctx');
    await keys.rotateDataKey();
    const relabelled = Buffer.from(sealed);
    relabelled.writeUInt32BE(2, 1);
    await expect(keys.open(relabelled, 'ctx')).rejects.toMatchObject({ reason: 'AUTHENTICATION_FAILED' });
    relabelled.writeUInt32BE(99, 1);
    await expect(keys.open(relabelled, 'ctx')).rejects.toMatchObject({ reason: 'UNKNOWN_KEY' });
    const otherFormat = Buffer.from(sealed);
    otherFormat[0] = 2;
    await expect(keys.open(otherFormat, 'ctx')).rejects.toMatchObject({ reason: 'MALFORMED' });
  });

  it('rotates data keys: new values under the new key, old values still open', async () => {
    const store = new InMemoryDataKeyStore();
    const keys = await started(store, masterConfig('m1')[0]);
    const old = keys.sealer().seal(CARD, 'ctx');
    const newId = await keys.rotateDataKey();
    expect(newId).toBe(2);
    expect(keys.sealer().keyId).toBe(2);
    expect(keyIdOf(keys.sealer().seal(CARD, 'ctx'))).toBe(2);
    expect((await keys.open(old, 'ctx')).toString()).toBe(CARD);
    expect(keys.describe()).toEqual([
      { id: 1, state: 'DECRYPT_ONLY' },
      { id: 2, state: 'ACTIVE' },
    ]);
  });

  it('learns about a rotation done by another replica when it meets the new key', async () => {
    const store = new InMemoryDataKeyStore();
    const [master] = masterConfig('m1');
    const replicaA = await started(store, master);
    const replicaB = await started(store, master);
    await replicaA.rotateDataKey();
    const sealedByA = replicaA.sealer().seal(CARD, 'ctx');
    expect(replicaB.activeKeyId).toBe(1);
    expect((await replicaB.open(sealedByA, 'ctx')).toString()).toBe(CARD);
    expect(replicaB.activeKeyId).toBe(2);
  });

  it('rotates the master key: re-wraps data keys, after which the old master key can go', async () => {
    const store = new InMemoryDataKeyStore();
    const [oldMaster, newMaster] = masterConfig('old', 'new');
    const before = await started(store, oldMaster);
    const sealed = before.sealer().seal(CARD, 'ctx');
    await before.rotateDataKey();
    const sealed2 = before.sealer().seal(CARD, 'ctx2');

    const during = await started(store, `${newMaster},${oldMaster}`);
    expect(await during.rewrapDataKeys()).toEqual([1, 2]);
    expect(store.rows.every((row) => row.masterKeyId === 'new')).toBe(true);
    expect(await during.rewrapDataKeys()).toEqual([]);

    const after = await started(store, newMaster);
    expect((await after.open(sealed, 'ctx')).toString()).toBe(CARD);
    expect((await after.open(sealed2, 'ctx2')).toString()).toBe(CARD);
  });

  it('after a restore from a backup older than a rotation, seals with the key the store now holds under a reused id', async () => {
    // A running replica made key 2 ACTIVE; the database is then restored from a backup taken
    // before that rotation (key 1 only), and the next rotation stores another key 2. The replica
    // must not go on sealing with the key 2 it remembers, which no other process can open.
    const store = new InMemoryDataKeyStore();
    const [master] = masterConfig('m1');
    const replica = await started(store, master);
    await replica.rotateDataKey();
    // The replica has sealed under its key 2 (its sealer for that id is built): after the
    // restore, the sealer must be the new key 2's, not the one it held.
    expect(keyIdOf(replica.sealer().seal(CARD, 'ctx'))).toBe(2);
    store.rows.splice(1);
    store.rows[0].state = 'ACTIVE';
    store.rows[0].retiredAt = null;
    const rotatingJob = await started(store, master);
    expect(await rotatingJob.rotateDataKey()).toBe(2);

    await replica.reload();
    const sealed = replica.sealer().seal(CARD, 'ctx');
    expect(keyIdOf(sealed)).toBe(2);
    expect((await rotatingJob.open(sealed, 'ctx')).toString()).toBe(CARD);
    expect((await (await started(store, master)).open(sealed, 'ctx')).toString()).toBe(CARD);
  });

  it('keeps a key re-wrapped under a master key this process was not given yet', async () => {
    const store = new InMemoryDataKeyStore();
    const [oldMaster, newMaster] = masterConfig('old', 'new');
    const notYetRolled = await started(store, oldMaster);
    const sealed = notYetRolled.sealer().seal(CARD, 'ctx');
    await (await started(store, `${newMaster},${oldMaster}`)).rewrapDataKeys();
    await notYetRolled.reload();
    expect((await notYetRolled.open(sealed, 'ctx')).toString()).toBe(CARD);
    expect(keyIdOf(notYetRolled.sealer().seal(CARD, 'ctx'))).toBe(1);
  });

  it('refuses to start when a data key is wrapped under a master key it does not have', async () => {
    const store = new InMemoryDataKeyStore();
    const [m1, m2] = masterConfig('m1', 'm2');
    await started(store, m1);
    await expect(started(store, m2)).rejects.toThrow('data key 1 is wrapped under master key m1, which is not configured');
  });

  it('destroys only retired keys that nothing uses and that retired long enough ago', async () => {
    const store = new InMemoryDataKeyStore();
    const keys = await started(store, masterConfig('m1')[0]);
    await keys.rotateDataKey();
    await keys.rotateDataKey();
    store.inUse = (id) => id === 2;
    const now = new Date();
    expect(await keys.destroyRetiredKeys(60_000, now)).toEqual({ destroyed: [], inUse: [] });
    const later = new Date(now.getTime() + 61_000);
    expect(await keys.destroyRetiredKeys(60_000, later)).toEqual({ destroyed: [1], inUse: [2] });
    expect(keys.describe().map((k) => k.id)).toEqual([2, 3]);
  });

  it('never shows key material when inspected or serialised', async () => {
    const store = new InMemoryDataKeyStore();
    const [master] = masterConfig('m1');
    const keys = await started(store, master);
    const dataKey = MasterKeyRing.parse(master).unwrap(1, store.rows[0]).reveal();
    const masterKey = Buffer.from(master.slice(3), 'base64');
    const text = `${inspect(keys, { depth: 10, showHidden: true, maxArrayLength: 1000 })}${JSON.stringify(keys.describe())}`;
    for (const material of [dataKey, masterKey]) {
      const asInspected = [...material.subarray(0, 8)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
      expect(text).not.toContain(asInspected);
      expect(text).not.toContain(material.toString('base64').slice(0, 12));
    }
    expect(text).toContain('Secret([REDACTED])');
  });
});
