import { Inject, Injectable } from '@nestjs/common';
import type { VaultKeys } from '@gateway/crypto';
import { TokenSealing, VAULT_KEYS } from '../instrument/token-sealing';
import { TOKEN_STORE, TokenStore } from '../token-store';

export interface ReencryptOptions {
  /** Rows per transaction: small enough that each transaction holds its row locks briefly. */
  batchSize: number;
  /** Rows a save holds locked are skipped; wait this long and look again. */
  lockedRetryDelayMs?: number;
  /** Give up on locked rows after this many empty rounds (the next run finishes them). */
  maxLockedRounds?: number;
  onBatch?: (progress: { reencrypted: number }) => void;
}

export interface ReencryptResult {
  activeKeyId: number;
  reencrypted: number;
  /** Rows still sealed under an older key (locked by saves during the whole run). */
  remaining: number;
}

/**
 * Key rotation's second half: re-seals every token not sealed under the ACTIVE data key, in
 * short batches that skip rows a save is writing, so the service keeps serving throughout. Rows
 * written meanwhile by a replica that had not yet seen the new key are picked up by later
 * rounds; the run ends when none is left (or only locked ones, after a few rounds).
 */
@Injectable()
export class ReencryptTokens {
  constructor(
    @Inject(TOKEN_STORE) private readonly store: TokenStore,
    private readonly sealing: TokenSealing,
    @Inject(VAULT_KEYS) private readonly keys: VaultKeys,
  ) {}

  async execute(options: ReencryptOptions): Promise<ReencryptResult> {
    const activeKeyId = this.keys.activeKeyId;
    let reencrypted = 0;
    let lockedRounds = 0;
    for (;;) {
      const count = await this.store.reencryptBatch(activeKeyId, options.batchSize, (row) => this.sealing.reseal(row));
      if (count > 0) {
        reencrypted += count;
        options.onBatch?.({ reencrypted });
        continue;
      }
      const remaining = await this.store.countNotUnderKey(activeKeyId);
      if (remaining === 0 || ++lockedRounds > (options.maxLockedRounds ?? 50)) {
        return { activeKeyId, reencrypted, remaining };
      }
      await new Promise((resolve) => setTimeout(resolve, options.lockedRetryDelayMs ?? 100));
    }
  }
}
