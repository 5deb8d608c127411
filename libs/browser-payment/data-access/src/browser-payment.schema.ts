import type { ServiceSchema } from '@gateway/platform';
import { BrowserPaymentEntity } from './browser-payment.entity';
import { CreateBrowserPayments1764100000000 } from './migrations/1764100000000-create-browser-payments';
import { IndexExpiredPayments1764300000000 } from './migrations/1764300000000-index-expired-payments';
import { AddPaymentExecutionLease1764500000000 } from './migrations/1764500000000-add-payment-execution-lease';
import { CreateSimulatedProviderRefunds1764700000000 } from './migrations/1764700000000-create-simulated-provider-refunds';
import { CreateProviderCaptures1764800000000 } from './migrations/1764800000000-create-provider-captures';
import { AddPaymentMerchantMode1764900000000 } from './migrations/1764900000000-add-payment-merchant-mode';
import { ValidatePaymentMerchantMode1764900000001 } from './migrations/1764900000001-validate-payment-merchant-mode';
import { AddPaymentPayerDataStripped1765600000000 } from './migrations/1765600000000-add-payment-payer-data-stripped';
import { IndexPaymentsToStrip1765600000001 } from './migrations/1765600000001-index-payments-to-strip';
import { IndexPaymentsAwaitingConfirm1765800000000 } from './migrations/1765800000000-index-payments-awaiting-confirm';
import { ProviderCaptureEntity } from './provider-capture.entity';
import { ProviderRefundEntity } from './provider-refund.entity';
import { SimulatedProviderCaptureEntity } from './simulated-provider-capture.entity';
import { SimulatedProviderPaymentEntity } from './simulated-provider-payment.entity';
import { SimulatedProviderRefundEntity } from './simulated-provider-refund.entity';

/**
 * The `browser_payment` schema: owned by browser-payment, migrated by its own SQL migrations, read by no other
 * service. Entities and migrations are listed here explicitly (no globs) so the build and the
 * drift check see exactly what runs.
 */
export const BROWSER_PAYMENT_SCHEMA: ServiceSchema = {
  schema: 'browser_payment',
  entities: [
    BrowserPaymentEntity,
    SimulatedProviderPaymentEntity,
    SimulatedProviderRefundEntity,
    SimulatedProviderCaptureEntity,
    ProviderRefundEntity,
    ProviderCaptureEntity,
  ],
  migrations: [
    CreateBrowserPayments1764100000000,
    IndexExpiredPayments1764300000000,
    AddPaymentExecutionLease1764500000000,
    CreateSimulatedProviderRefunds1764700000000,
    CreateProviderCaptures1764800000000,
    AddPaymentMerchantMode1764900000000,
    ValidatePaymentMerchantMode1764900000001,
    AddPaymentPayerDataStripped1765600000000,
    IndexPaymentsToStrip1765600000001,
    IndexPaymentsAwaitingConfirm1765800000000,
  ],
};
