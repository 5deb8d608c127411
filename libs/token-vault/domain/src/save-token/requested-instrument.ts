import { GatewayError, MerchantContext } from '@gateway/contracts';
import { Pan } from '@gateway/crypto';
import { CardExpiry } from '../cards/card-expiry';
import type { TestP2peScheme } from '../p2pe/test-p2pe-scheme';
import type { SaveTokenFields } from './save-token-fields';
import type { RequestedInstrument } from './save-token.rules';

/** The request names a provisioning identifier: the card comes from the token service provider. */
export interface PushProvisioning {
  provisioningIdentifier: string;
}

/**
 * What the request's source of funds describes, checked for coherence: the type matches the
 * details given (CARD when card data is passed in any form), card number or p2pe (decrypted
 * here), provider_a only with a billing agreement (token rule 5), push provisioning without
 * card details (rule 8).
 */
export function requestedInstrument(
  fields: SaveTokenFields,
  merchant: MerchantContext,
  p2pe: TestP2peScheme,
): RequestedInstrument | PushProvisioning {
  const sof = fields.sourceOfFunds;
  const card = sof.provided?.card;
  const providerA = sof.provided?.provider_a;
  if (sof.schemeTokenProvisioningIdentifier !== undefined) {
    if (card) {
      throw GatewayError.invalidField(
        'sourceOfFunds.provided.card',
        'UNSUPPORTED',
        'Push provisioning takes the card from the token service provider: do not supply sourceOfFunds.provided.card.',
      );
    }
    requireType(sof.type, 'CARD');
    return { provisioningIdentifier: sof.schemeTokenProvisioningIdentifier };
  }
  if ((card || providerA) && sof.type === undefined) {
    throw GatewayError.invalidField('sourceOfFunds.type', 'MISSING', 'Missing parameter sourceOfFunds.type.');
  }
  if (sof.type === 'PROVIDER_A') {
    if (card) {
      throw GatewayError.invalidField('sourceOfFunds.provided.card', 'UNSUPPORTED', 'Card details are not supported with sourceOfFunds.type PROVIDER_A.');
    }
    const agreement = providerA?.billingAgreement;
    if (!agreement) {
      throw GatewayError.invalidField(
        'sourceOfFunds.provided.provider_a.billingAgreement',
        'MISSING',
        'Missing parameter sourceOfFunds.provided.provider_a.billingAgreement: provider_a details are stored only with a billing agreement.',
      );
    }
    return {
      type: 'PROVIDER_A',
      agreement: {
        id: agreement.id,
        cardinality: agreement.cardinality,
        ...(agreement.name !== undefined ? { name: agreement.name } : {}),
        ...(agreement.description !== undefined ? { description: agreement.description } : {}),
      },
      payer: definedOnly({ accountEmail: providerA.accountEmail, accountHolder: providerA.accountHolder, payerId: providerA.payerId }),
      // Kept only for provider_a billing agreements (token rule 5); ignored for every other token.
      ...(fields.shipping ? { shipping: fields.shipping } : {}),
    };
  }
  if (providerA) {
    throw GatewayError.invalidField('sourceOfFunds.provided.provider_a', 'UNSUPPORTED', 'provider_a details are not supported with sourceOfFunds.type CARD.');
  }
  if (!card) {
    return null;
  }
  const expiry = card.expiry ? CardExpiry.of(card.expiry.month, card.expiry.year) ?? undefined : undefined;
  if (card.p2pe) {
    if (card.number !== undefined) {
      throw GatewayError.invalidField(
        'sourceOfFunds.provided.card.p2pe',
        'UNSUPPORTED',
        'Supply either sourceOfFunds.provided.card.number or the p2pe-encrypted card data, not both.',
      );
    }
    return { type: 'CARD', pan: p2pe.decrypt(merchant, card.p2pe), expiry };
  }
  return { type: 'CARD', pan: card.number === undefined ? undefined : Pan.of(card.number), expiry };
}

export function isPushProvisioning(value: RequestedInstrument | PushProvisioning): value is PushProvisioning {
  return value !== null && 'provisioningIdentifier' in value;
}

function requireType(type: string | undefined, expected: string): void {
  if (type === undefined) {
    throw GatewayError.invalidField('sourceOfFunds.type', 'MISSING', 'Missing parameter sourceOfFunds.type.');
  }
  if (type !== expected) {
    throw GatewayError.invalidField('sourceOfFunds.type', 'INVALID', `Value '${type}' is invalid. Push provisioning needs sourceOfFunds.type ${expected}.`);
  }
}

function definedOnly<T extends Record<string, string | undefined>>(record: T): Record<string, string> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as Record<string, string>;
}
