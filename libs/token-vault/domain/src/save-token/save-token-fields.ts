import type { BILLING_AGREEMENT_CARDINALITIES, CardP2pe, SaveTokenRequest, TokenShipping } from '@gateway/contracts';

/**
 * The create-or-update token request as the vault reads it: the validated `SaveTokenRequest`
 * (libs/contracts). The edge validates every body before it sends it; the vault's handlers
 * validate again with the same class (`validateTokenRequest`) before a use case sees it.
 */
export type SaveTokenFields = SaveTokenRequest;
export type P2peFields = CardP2pe;
/** Kept only for provider_a billing agreement tokens (token rule 5). */
export type ShippingFields = TokenShipping;
export type BillingAgreementCardinality = (typeof BILLING_AGREEMENT_CARDINALITIES)[number];
