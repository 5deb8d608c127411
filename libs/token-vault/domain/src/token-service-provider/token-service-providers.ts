import type { MerchantContext } from '@gateway/contracts';
import type { Fingerprinter } from '@gateway/crypto';
import { SimulatedTokenServiceProvider } from './simulated-token-service-provider';
import { ProvisioningResult, TokenizationResult, TokenServiceProvider, TokenServiceProviders } from './token-service-provider';

/**
 * No live token service provider is connected: live merchants' tokenization attempts end in
 * SCHEME_TOKENIZATION_ERROR (the gateway token is still stored), never in a made-up success.
 */
export class UnavailableTokenServiceProvider implements TokenServiceProvider {
  async tokenize(): Promise<TokenizationResult> {
    return { code: 'SCHEME_TOKENIZATION_ERROR' };
  }

  async provision(): Promise<ProvisioningResult> {
    return { code: 'SCHEME_TOKENIZATION_ERROR' };
  }
}

export class BuiltInTokenServiceProviders implements TokenServiceProviders {
  private readonly simulator: SimulatedTokenServiceProvider;
  private readonly unavailable = new UnavailableTokenServiceProvider();

  /**
   * `simulatorEnabled`: VAULT_TSP_SIMULATOR, on by default; test merchants only ever.
   * `fingerprinter`: the vault's fingerprint key, which keys the simulator's scheme token numbers.
   */
  constructor(
    private readonly simulatorEnabled: boolean,
    fingerprinter: Fingerprinter,
  ) {
    this.simulator = new SimulatedTokenServiceProvider(fingerprinter);
  }

  forMerchant(merchant: MerchantContext): TokenServiceProvider {
    return merchant.mode === 'TEST' && this.simulatorEnabled ? this.simulator : this.unavailable;
  }
}
