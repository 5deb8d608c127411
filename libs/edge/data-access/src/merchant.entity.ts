import { Check, Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { MerchantMode, MerchantSettings } from '@gateway/contracts';

export type MerchantStatus = 'ENABLED' | 'DISABLED';

/**
 * A merchant profile. Credentials are stored only as keyed hashes; during a password rotation
 * the previous hash stays valid until `previousPasswordExpiresAt`, so integrations can switch
 * without downtime.
 */
@Entity({ name: 'merchants' })
@Check('merchants_id_check', `id ~ '^[0-9A-Za-z_-]{1,40}$'`)
@Check('merchants_mode_check', `mode IN ('TEST', 'LIVE')`)
@Check('merchants_status_check', `status IN ('ENABLED', 'DISABLED')`)
export class MerchantEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'varchar', length: 4 })
  mode: MerchantMode;

  @Column({ type: 'varchar', length: 8 })
  status: MerchantStatus;

  @Column({ type: 'jsonb' })
  settings: MerchantSettings;

  @Column({ name: 'password_hash', type: 'text', nullable: true })
  passwordHash: string | null;

  @Column({ name: 'previous_password_hash', type: 'text', nullable: true })
  previousPasswordHash: string | null;

  @Column({ name: 'previous_password_expires_at', type: 'timestamptz', nullable: true })
  previousPasswordExpiresAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
