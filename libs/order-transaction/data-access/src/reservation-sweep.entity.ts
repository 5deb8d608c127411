import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The cursor of the sweep for card reservations abandoned PENDING (UnknownInquiries.sweepAbandoned,
 * docs/decisions/unknown-resolution.md): one row, written by its migration. A sweep takes it FOR
 * UPDATE SKIP LOCKED, so one replica sweeps at a time and the others skip.
 */
@Entity({ name: 'reservation_sweep' })
@Check('reservation_sweep_one_row_check', 'id')
export class ReservationSweepEntity {
  @PrimaryColumn({ type: 'boolean', default: true, primaryKeyConstraintName: 'reservation_sweep_pkey' })
  id: boolean;

  /** The ledger is swept up to this creation time: the next sweep reads the transactions created after it. */
  @Column({ name: 'swept_to', type: 'timestamptz' })
  sweptTo: Date;
}
