import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Fingerprinter, Pan, VaultKeys } from '@gateway/crypto';
import type { SealedColumns, TokenRecord } from '@gateway/token-vault/data-access';
import { CardExpiry } from '../cards/card-expiry';
import type { SchemeToken } from '../token-service-provider/token-service-provider';
import type { ShippingFields } from '../save-token/save-token-fields';
import { accountIdentifier, Instrument, ProviderAPayer } from './instrument';

export const VAULT_KEYS = Symbol('VAULT_KEYS');
export const FINGERPRINTER = Symbol('FINGERPRINTER');

interface SealedProviderA {
  payer: ProviderAPayer;
  shipping?: ShippingFields;
}

interface SealedSchemeToken {
  number: string;
  expiry: string | null;
}

/**
 * The one place token rows are sealed and opened. Each sealed column is bound (GCM additional
 * data) to its row id and column, so a ciphertext copied onto another row or into another
 * column does not open. All sealed columns of a row are sealed under one data key, which the
 * row names (data_key_id).
 */
@Injectable()
export class TokenSealing {
  constructor(
    @Inject(VAULT_KEYS) private readonly keys: VaultKeys,
    @Inject(FINGERPRINTER) private readonly fingerprinter: Fingerprinter,
  ) {}

  newRowId(): string {
    return randomUUID();
  }

  fingerprint(repositoryId: string, instrument: Instrument): Buffer {
    return this.fingerprinter.fingerprint(repositoryId, instrument.type, accountIdentifier(instrument));
  }

  seal(rowId: string, instrument: Instrument, schemeToken: SchemeToken | null): SealedColumns {
    const sealer = this.keys.sealer();
    return {
      dataKeyId: sealer.keyId,
      accountIdentifier: sealer.seal(accountIdentifier(instrument), context(rowId, 'account_identifier')),
      providerADetails:
        instrument.type === 'PROVIDER_A'
          ? sealer.seal(
              JSON.stringify({ payer: instrument.payer, shipping: instrument.shipping } satisfies SealedProviderA),
              context(rowId, 'provider_a_details'),
            )
          : null,
      schemeToken: schemeToken
        ? sealer.seal(
            JSON.stringify({ number: schemeToken.number.reveal(), expiry: schemeToken.expiry?.mmyy ?? null } satisfies SealedSchemeToken),
            context(rowId, 'scheme_token'),
          )
        : null,
    };
  }

  async openInstrument(record: TokenRecord): Promise<Instrument> {
    const identifier = (await this.keys.open(record.accountIdentifier, context(record.id, 'account_identifier'))).toString('utf8');
    if (record.sourceType === 'CARD') {
      return { type: 'CARD', pan: Pan.of(identifier), expiry: record.cardExpiry ? CardExpiry.fromMmyy(record.cardExpiry) : null };
    }
    const details = record.providerADetails
      ? (JSON.parse((await this.keys.open(record.providerADetails, context(record.id, 'provider_a_details'))).toString('utf8')) as SealedProviderA)
      : { payer: {} };
    const agreement = record.providerAAgreement ?? {};
    return {
      type: 'PROVIDER_A',
      agreement: {
        id: identifier,
        cardinality: agreement.cardinality === 'SINGLE' ? 'SINGLE' : 'MULTIPLE',
        ...(agreement.name ? { name: agreement.name } : {}),
        ...(agreement.description ? { description: agreement.description } : {}),
      },
      payer: details.payer,
      ...(details.shipping ? { shipping: details.shipping } : {}),
    };
  }

  async openSchemeToken(record: TokenRecord): Promise<SchemeToken | null> {
    if (!record.schemeToken || !record.schemeTokenReference) {
      return null;
    }
    const sealed = JSON.parse((await this.keys.open(record.schemeToken, context(record.id, 'scheme_token'))).toString('utf8')) as SealedSchemeToken;
    return {
      reference: record.schemeTokenReference,
      number: Pan.of(sealed.number),
      expiry: sealed.expiry ? CardExpiry.fromMmyy(sealed.expiry) : null,
    };
  }

  /** Re-seals a row's sealed columns under the ACTIVE key (key rotation). */
  async reseal(record: TokenRecord): Promise<SealedColumns> {
    return this.seal(record.id, await this.openInstrument(record), await this.openSchemeToken(record));
  }
}

function context(rowId: string, column: string): string {
  return `token_vault.tokens:${rowId}:${column}`;
}
