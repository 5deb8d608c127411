import type { Agreement } from '@gateway/contracts';
import type { AgreementTermsRow } from '@gateway/order-transaction/data-access';
import { invalid, missing } from '../request-errors/request-errors';
import { checkAgreement } from '../verification/rules/agreement.rule';

/** The spec's default `agreement.type`: what an agreement is when its first payment stated none. */
export const DEFAULT_AGREEMENT_TYPE = 'OTHER';

type AgreementType = NonNullable<Agreement['type']>;
type AmountVariability = NonNullable<Agreement['amountVariability']>;
type PaymentFrequency = NonNullable<Agreement['paymentFrequency']>;

/**
 * The agreement a VERIFY, AUTHORIZE or PAY runs on, checked: the request's agreement with
 * every term it leaves out taken from the agreement as its first successful payment
 * established it (`established`, null when the id is not known yet or the request names no
 * id), then the spec's agreement rules on the result (docs/decisions/agreements.md). Throws
 * the 400 of a request stating another type than the established one.
 */
export function agreementForOperation(
  given: Agreement | undefined,
  established: AgreementTermsRow | null,
  currency: string,
  now: Date,
  { storedCredential }: { storedCredential: boolean },
): Agreement | undefined {
  if (storedCredential) {
    checkSeriesNamed(given);
  }
  const agreement = fillAgreement(given, established, currency);
  // The established start date is reused whether the request leaves it out or repeats it, as
  // merchants that send the whole agreement with every payment of the series do.
  const startDateGiven = given?.startDate !== undefined && given.startDate !== established?.startDate;
  checkAgreement(agreement, currency, now, {
    reusedStartDate: !startDateGiven && agreement?.startDate !== undefined,
  });
  return agreement;
}

/** The agreement types of a series of payments: a payment in one with a stored card names the series. */
const SERIES_TYPES: ReadonlySet<string> = new Set(['INSTALLMENT', 'RECURRING', 'UNSCHEDULED']);

/**
 * Spec, agreement.id: "must be provided when stored values are used for recurring, installment,
 * unscheduled or industry-practice payments". A payment with a token's card (stored
 * credentials) stating one of those types names its agreement; without the id the issuer
 * cannot tell the series it belongs to. Industry-practice payments have no type of their own
 * in this API, so the rule reads the three types.
 */
function checkSeriesNamed(given: Agreement | undefined): void {
  if (given?.type !== undefined && given.id === undefined && SERIES_TYPES.has(given.type)) {
    throw missing('agreement.id', `A ${given.type} payment with stored card details (a token) must name its agreement.`);
  }
}

/**
 * The request's agreement over the established one. The type is the established one: a
 * request may repeat it but not change it (the spec: "the gateway reuses it for later
 * payments"). Other terms the request gives apply to this operation only. The established
 * amounts per payment are in the currency they were given in: an operation in another
 * currency is not given them (no conversion; it may state its own). A retailer is one group:
 * the request's, whole, or the established one.
 */
export function fillAgreement(
  given: Agreement | undefined,
  established: AgreementTermsRow | null,
  currency: string,
): Agreement | undefined {
  if (given === undefined || established === null) {
    return given;
  }
  if (given.type !== undefined && given.type !== established.type) {
    throw invalid(
      'agreement.type',
      given.type,
      `Agreement '${given.id}' was established as ${established.type} by its first payment` +
        `${established.type === DEFAULT_AGREEMENT_TYPE ? ' (OTHER when it states no type)' : ''}; an agreement's type does not change.`,
    );
  }
  const sameCurrency = established.amountCurrency === currency;
  return definedTerms({
    id: given.id,
    type: established.type as AgreementType,
    amountVariability:
      given.amountVariability ?? (established.amountVariability as AmountVariability | undefined),
    customData: given.customData ?? established.customData,
    expiryDate: given.expiryDate ?? established.expiryDate,
    startDate: given.startDate ?? established.startDate,
    maximumAmountPerPayment:
      given.maximumAmountPerPayment ?? (sameCurrency ? established.maximumAmountPerPayment : undefined),
    minimumAmountPerPayment:
      given.minimumAmountPerPayment ?? (sameCurrency ? established.minimumAmountPerPayment : undefined),
    minimumDaysBetweenPayments: given.minimumDaysBetweenPayments ?? established.minimumDaysBetweenPayments,
    numberOfPayments: given.numberOfPayments ?? established.numberOfPayments,
    paymentFrequency:
      given.paymentFrequency ?? (established.paymentFrequency as PaymentFrequency | undefined),
    retailer: given.retailer ?? established.retailer,
  });
}

/**
 * Whether the agreement an operation runs on (`agreement`, fillAgreement's) carries the
 * established agreement's custom data: the request gave none, so the text is the stored one.
 * Its record then says so (RecordOperationMessage.storedAgreementText), and the ledger keeps the
 * text only if a payer's erasure has not cleared it since it was read.
 */
export function carriesStoredAgreementText(given: Agreement | undefined, agreement: Agreement | undefined): boolean {
  return given?.customData === undefined && agreement?.customData !== undefined;
}

/**
 * What the first successful payment establishes: the terms it ran on, its type OTHER when it
 * stated none, its amounts per payment with the order currency they were given in.
 */
export function termsToEstablish(agreement: Agreement, currency: string): AgreementTermsRow {
  const hasAmounts =
    agreement.minimumAmountPerPayment !== undefined || agreement.maximumAmountPerPayment !== undefined;
  const retailer = agreement.retailer === undefined ? undefined : definedTerms({ ...agreement.retailer });
  return definedTerms({
    type: agreement.type ?? DEFAULT_AGREEMENT_TYPE,
    amountVariability: agreement.amountVariability,
    customData: agreement.customData,
    expiryDate: agreement.expiryDate,
    startDate: agreement.startDate,
    minimumAmountPerPayment: agreement.minimumAmountPerPayment,
    maximumAmountPerPayment: agreement.maximumAmountPerPayment,
    amountCurrency: hasAmounts ? currency : undefined,
    minimumDaysBetweenPayments: agreement.minimumDaysBetweenPayments,
    numberOfPayments: agreement.numberOfPayments,
    paymentFrequency: agreement.paymentFrequency,
    retailer: retailer !== undefined && Object.keys(retailer).length > 0 ? retailer : undefined,
  });
}

/** The object without its undefined keys (responses and comparisons show only what is stated). */
function definedTerms<T extends object>(terms: T): T {
  return Object.fromEntries(Object.entries(terms).filter(([, value]) => value !== undefined)) as T;
}
