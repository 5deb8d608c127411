import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { PreparedStatement } from '@gateway/platform';
import { DataSource, EntityManager } from 'typeorm';

/** A retailer of an installment agreement, as the first payment gave it. */
export interface AgreementRetailerRow {
  abbreviatedTradingName?: string;
  merchantCategoryCode?: string;
  tradingName?: string;
}

/**
 * An agreement's terms as established by its first successful payment. Absent keys: the
 * first payment did not state the term. Amounts are exact decimal text in `amountCurrency`.
 */
export interface AgreementTermsRow {
  type: string;
  amountVariability?: string;
  customData?: string;
  expiryDate?: string;
  startDate?: string;
  minimumAmountPerPayment?: string;
  maximumAmountPerPayment?: string;
  amountCurrency?: string;
  minimumDaysBetweenPayments?: number;
  numberOfPayments?: number;
  paymentFrequency?: string;
  retailer?: AgreementRetailerRow;
}

/** The operation whose success established the agreement. */
export interface AgreementOrigin {
  orderId: string;
  transactionId: string;
  apiOperation: string;
  at: Date;
}

export interface StoredAgreement extends AgreementTermsRow {
  merchantId: string;
  agreementId: string;
  established: AgreementOrigin;
}

// Dates as text (node-pg would make a local-midnight Date of them); amounts as the shortest
// exact text, so '10.000' of a JPY amount reads back as '10' and passes the currency's rules.
const FIND_AGREEMENT = new PreparedStatement(
  `SELECT type, amount_variability AS "amountVariability", custom_data AS "customData",
          expiry_date::text AS "expiryDate", start_date::text AS "startDate",
          trim_scale(minimum_amount_per_payment)::text AS "minimumAmountPerPayment",
          trim_scale(maximum_amount_per_payment)::text AS "maximumAmountPerPayment",
          amount_currency AS "amountCurrency", minimum_days_between_payments AS "minimumDaysBetweenPayments",
          number_of_payments AS "numberOfPayments", payment_frequency AS "paymentFrequency",
          retailer_abbreviated_trading_name AS "abbreviatedTradingName",
          retailer_merchant_category_code AS "merchantCategoryCode", retailer_trading_name AS "tradingName",
          established_order_id AS "orderId", established_transaction_id AS "transactionId",
          established_operation AS "apiOperation", established_at AS "at"
     FROM order_transaction.agreements
    WHERE merchant_id = $1 AND agreement_id = $2`,
);

/** The first to commit establishes it; a later (or racing) insert of the same id writes nothing. */
const ESTABLISH_AGREEMENT = new PreparedStatement(
  `INSERT INTO order_transaction.agreements (merchant_id, agreement_id, type, amount_variability,
     custom_data, expiry_date, start_date, minimum_amount_per_payment, maximum_amount_per_payment,
     amount_currency, minimum_days_between_payments, number_of_payments, payment_frequency,
     retailer_abbreviated_trading_name, retailer_merchant_category_code, retailer_trading_name,
     established_order_id, established_transaction_id, established_operation, established_at)
   VALUES ($1, $2, $3, $4, $5, $6::date, $7::date, $8::numeric, $9::numeric, $10, $11::integer,
     $12::integer, $13, $14, $15, $16, $17, $18, $19, $20::timestamptz)
   ON CONFLICT (merchant_id, agreement_id) DO NOTHING`,
);

/** The agreement's text, its row held until the caller's transaction ends: a payer's erasure (FOR UPDATE) waits meanwhile. */
const LOCK_AGREEMENT_TEXT = new PreparedStatement(
  `SELECT custom_data AS "customData" FROM order_transaction.agreements
    WHERE merchant_id = $1 AND agreement_id = $2
      FOR SHARE`,
);

/**
 * The agreement's custom data as it is now (null: none, erased, or no such agreement), read in
 * the transaction of `manager` with the agreement's row held until it ends. For a ledger record
 * that carries the text it read before (RecordOperationMessage.storedAgreementText): called once
 * the record holds its order's row, as the payer's erasure takes the order's row before the
 * agreement's, so neither waits for the other in the opposite order.
 */
export async function lockedAgreementText(
  manager: EntityManager,
  merchantId: string,
  agreementId: string,
): Promise<string | null> {
  const [row] = await LOCK_AGREEMENT_TEXT.rows<{ customData: string | null }>(manager, [
    merchantId,
    agreementId,
  ]);
  return row?.customData ?? null;
}

/** A row as FIND_AGREEMENT returns it: every term a column, null when not stated. */
type AgreementDbRow = { [K in keyof Omit<AgreementTermsRow, 'retailer'>]-?: AgreementTermsRow[K] | null } & {
  abbreviatedTradingName: string | null;
  merchantCategoryCode: string | null;
  tradingName: string | null;
} & AgreementOrigin;

/**
 * The agreements table (docs/decisions/agreements.md): one indexed read by primary key, one
 * insert that does nothing on a conflict. Both autocommit outside the ledger's transactions,
 * as named prepared statements (docs/decisions/prepared-statements.md).
 */
@Injectable()
export class AgreementRepository {
  private readonly manager: EntityManager;

  constructor(@InjectDataSource('order_transaction') dataSource: DataSource) {
    this.manager = dataSource.manager;
  }

  async find(merchantId: string, agreementId: string): Promise<StoredAgreement | null> {
    const [row] = await FIND_AGREEMENT.rows<AgreementDbRow>(this.manager, [merchantId, agreementId]);
    return row ? storedAgreementOf(merchantId, agreementId, row) : null;
  }

  /** True when this call established it; false when the agreement existed already (nothing written). */
  async establish(
    merchantId: string,
    agreementId: string,
    terms: AgreementTermsRow,
    origin: AgreementOrigin,
  ): Promise<boolean> {
    const written = await ESTABLISH_AGREEMENT.rowCount(this.manager, [
      merchantId,
      agreementId,
      terms.type,
      terms.amountVariability ?? null,
      terms.customData ?? null,
      terms.expiryDate ?? null,
      terms.startDate ?? null,
      terms.minimumAmountPerPayment ?? null,
      terms.maximumAmountPerPayment ?? null,
      terms.amountCurrency ?? null,
      terms.minimumDaysBetweenPayments ?? null,
      terms.numberOfPayments ?? null,
      terms.paymentFrequency ?? null,
      terms.retailer?.abbreviatedTradingName ?? null,
      terms.retailer?.merchantCategoryCode ?? null,
      terms.retailer?.tradingName ?? null,
      origin.orderId,
      origin.transactionId,
      origin.apiOperation,
      origin.at,
    ]);
    return written === 1;
  }
}

function storedAgreementOf(merchantId: string, agreementId: string, row: AgreementDbRow): StoredAgreement {
  const {
    orderId,
    transactionId,
    apiOperation,
    at,
    abbreviatedTradingName,
    merchantCategoryCode,
    tradingName,
    ...terms
  } = row;
  const retailer = definedOnly({ abbreviatedTradingName, merchantCategoryCode, tradingName });
  return {
    merchantId,
    agreementId,
    ...(definedOnly(terms) as AgreementTermsRow),
    ...(Object.keys(retailer).length > 0 ? { retailer } : {}),
    established: { orderId, transactionId, apiOperation, at },
  };
}

/** The keys whose value is not null. */
function definedOnly<T extends Record<string, unknown>>(values: T): { [K in keyof T]?: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== null)) as {
    [K in keyof T]?: Exclude<T[K], null>;
  };
}
