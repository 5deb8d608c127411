import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The cursor of browser-payment's payer personal-data retention
 * (BrowserPaymentPayerDataRepository.idlePayments, docs/decisions/payer-personal-data.md): one
 * row, written by its migration, moved forward only.
 */
@Entity({ name: 'personal_data_retention' })
@Check('personal_data_retention_one_row_check', 'id')
export class PersonalDataRetentionEntity {
  @PrimaryColumn({ type: 'boolean', default: true, primaryKeyConstraintName: 'personal_data_retention_pkey' })
  id: boolean;

  /** The last step time of the last payment done. */
  @Column({ name: 'retained_to', type: 'timestamptz' })
  retainedTo: Date;

  @Column({ name: 'payment_id', type: 'uuid' })
  paymentId: string;
}
