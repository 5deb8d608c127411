import type { ServiceSchema } from '@gateway/platform';
import { CreateOrderLedger1763900000000 } from './migrations/1763900000000-create-order-ledger';
import { AddTransactionTaxAmount1764000000000 } from './migrations/1764000000000-add-transaction-tax-amount';
import { ValidateTransactionTaxAmount1764000000001 } from './migrations/1764000000001-validate-transaction-tax-amount';
import { CreateNotificationOutbox1764200000000 } from './migrations/1764200000000-create-notification-outbox';
import { IndexNotificationReceivers1764400000000 } from './migrations/1764400000000-index-notification-receivers';
import { CreateAgreements1764600000000 } from './migrations/1764600000000-create-agreements';
import { IndexUnknownAnnouncements1764800000000 } from './migrations/1764800000000-index-unknown-announcements';
import { CreateUnknownInquiries1764800000001 } from './migrations/1764800000001-create-unknown-inquiries';
import { LedgerChecksAsConstants1765000000000 } from './migrations/1765000000000-ledger-checks-as-constants';
import { ValidateLedgerChecks1765000000001 } from './migrations/1765000000001-validate-ledger-checks';
import { IndexTransactionCreation1765200000000 } from './migrations/1765200000000-index-transaction-creation';
import { InquiriesOfUnknownMode1765200000001 } from './migrations/1765200000001-inquiries-of-unknown-mode';
import { CreateReservationSweep1765200000002 } from './migrations/1765200000002-create-reservation-sweep';
import { IndexDeliveredNotificationsByOrder1765400000000 } from './migrations/1765400000000-index-delivered-notifications-by-order';
import { AddOrderPayerDataStripped1765600000000 } from './migrations/1765600000000-add-order-payer-data-stripped';
import { IndexOrdersToStrip1765600000001 } from './migrations/1765600000001-index-orders-to-strip';
import { AddTransactionAnnouncement1765800000000 } from './migrations/1765800000000-add-transaction-announcement';
import { AgreementEntity } from './agreement.entity';
import { NotificationEntity } from './notification.entity';
import { OperationResponseEntity } from './operation-response.entity';
import { OrderEntity } from './order.entity';
import { ReservationSweepEntity } from './reservation-sweep.entity';
import { TransactionEntity } from './transaction.entity';
import { UnknownInquiryEntity } from './unknown-inquiry.entity';

/**
 * The `order_transaction` schema: owned by order-transaction, migrated by its own SQL migrations, read by no other
 * service. Entities and migrations are listed here explicitly (no globs) so the build and the
 * drift check see exactly what runs.
 */
export const ORDER_TRANSACTION_SCHEMA: ServiceSchema = {
  schema: 'order_transaction',
  entities: [OrderEntity, TransactionEntity, OperationResponseEntity, NotificationEntity, AgreementEntity, UnknownInquiryEntity, ReservationSweepEntity],
  migrations: [
    CreateOrderLedger1763900000000,
    AddTransactionTaxAmount1764000000000,
    ValidateTransactionTaxAmount1764000000001,
    CreateNotificationOutbox1764200000000,
    IndexNotificationReceivers1764400000000,
    CreateAgreements1764600000000,
    IndexUnknownAnnouncements1764800000000,
    CreateUnknownInquiries1764800000001,
    LedgerChecksAsConstants1765000000000,
    ValidateLedgerChecks1765000000001,
    IndexTransactionCreation1765200000000,
    InquiriesOfUnknownMode1765200000001,
    CreateReservationSweep1765200000002,
    IndexDeliveredNotificationsByOrder1765400000000,
    AddOrderPayerDataStripped1765600000000,
    IndexOrdersToStrip1765600000001,
    AddTransactionAnnouncement1765800000000,
  ],
};
