import type { Pan } from '@gateway/crypto';
import type { CardExpiry } from '../cards/card-expiry';
import type { BillingAgreementCardinality, ShippingFields } from '../save-token/save-token-fields';

export interface CardInstrument {
  type: 'CARD';
  pan: Pan;
  expiry: CardExpiry | null;
}

export interface BillingAgreement {
  id: string;
  cardinality: BillingAgreementCardinality;
  name?: string;
  description?: string;
}

export interface ProviderAPayer {
  accountEmail?: string;
  accountHolder?: string;
  payerId?: string;
}

/** provider_a billing agreement details; the only tokens that keep shipping details (token rule 5). */
export interface ProviderAInstrument {
  type: 'PROVIDER_A';
  agreement: BillingAgreement;
  payer: ProviderAPayer;
  shipping?: ShippingFields;
}

/** What a token stores. */
export type Instrument = CardInstrument | ProviderAInstrument;

/** The identifier the uniqueness and Preserve 6.4 rules are about (spec token rule 3). */
export function accountIdentifier(instrument: Instrument): string {
  return instrument.type === 'CARD' ? instrument.pan.reveal() : instrument.agreement.id;
}
