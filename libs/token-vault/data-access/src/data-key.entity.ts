import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import type { DataKeyState } from '@gateway/crypto';

/**
 * The vault's data keys, each stored only wrapped (AES-256-GCM) under a master key that lives
 * outside the database. Exactly one is ACTIVE (it encrypts); DECRYPT_ONLY keys are retired and
 * kept until no token uses them. Ids are small integers chosen under a table lock: every
 * ciphertext carries its key's id.
 */
@Entity({ name: 'data_keys' })
@Check('data_keys_state_check', `state IN ('ACTIVE', 'DECRYPT_ONLY')`)
@Check('data_keys_retired_check', `(state = 'ACTIVE') = (retired_at IS NULL)`)
@Index('data_keys_one_active_idx', ['state'], { unique: true, where: `state = 'ACTIVE'` })
export class DataKeyEntity {
  @PrimaryColumn({ type: 'integer' })
  id: number;

  @Column({ type: 'varchar', length: 12 })
  state: DataKeyState;

  @Column({ name: 'master_key_id', type: 'varchar', length: 32 })
  masterKeyId: string;

  @Column({ name: 'wrapped_key', type: 'bytea' })
  wrappedKey: Buffer;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'retired_at', type: 'timestamptz', nullable: true })
  retiredAt: Date | null;
}
