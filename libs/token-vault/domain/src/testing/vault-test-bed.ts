import { randomBytes } from 'node:crypto';
import {
  AuthMethod,
  defaultMerchantSettings,
  MerchantContext,
  MerchantMode,
  RequestEnvelope,
  TokenGenerationStrategy,
  TokenManagementStrategy,
  VerificationStrategy,
} from '@gateway/contracts';
import { AcquirerRegistry } from '@gateway/acquirer';
import { Fingerprinter, Secret, VaultKeys } from '@gateway/crypto';
import { createLogger, Metrics } from '@gateway/platform';
import { startTestVaultKeys } from '@gateway/testing';
import { CallAcquirer } from '../call-acquirer/call-acquirer.use-case';
import { DeleteToken } from '../delete-token/delete-token.use-case';
import { TokenSealing } from '../instrument/token-sealing';
import { TestP2peScheme, testBdkFromHex, X9_24_SAMPLE_BDK_HEX } from '../p2pe/test-p2pe-scheme';
import { ReencryptTokens } from '../reencrypt-tokens/reencrypt-tokens.use-case';
import { RetrieveToken } from '../retrieve-token/retrieve-token.use-case';
import { SaveToken } from '../save-token/save-token.use-case';
import { SealSessionCard } from '../seal-session-card/seal-session-card.use-case';
import { SessionCardSealing } from '../session-cards/session-card-sealing';
import { BuiltInTokenServiceProviders } from '../token-service-provider/token-service-providers';
import { AcquirerCardVerifier } from '../verification/acquirer-card-verifier';
import { AcquirerVerifier, CardVerification } from '../verification/card-verification';
import { InMemoryTokenStore } from './in-memory-token-store';
import { InProcessCardVerification } from './in-process-card-verification';

export interface TestRepository {
  generation?: TokenGenerationStrategy;
  management?: TokenManagementStrategy;
  schemeTokenization?: boolean;
  defaultVerificationStrategy?: VerificationStrategy;
  mode?: MerchantMode;
  unmask?: boolean;
  id?: string;
}

/** The envelope the vault's handlers pass their use cases. */
export function testEnvelope(merchant: MerchantContext, authMethod: AuthMethod = 'PASSWORD'): RequestEnvelope {
  return { merchant, authMethod, apiVersion: 57, requestId: `unit-${randomBytes(6).toString('hex')}` };
}

export function testMerchant(repository: TestRepository = {}): MerchantContext {
  const settings = defaultMerchantSettings();
  return {
    id: `TEST${randomBytes(3).toString('hex').toUpperCase()}`,
    mode: repository.mode ?? 'TEST',
    settings: {
      ...settings,
      tokenRepository: {
        id: repository.id ?? '1000000001',
        generation: repository.generation ?? 'RANDOM',
        management: repository.management ?? 'UNIQUE_TOKEN',
        schemeTokenization: repository.schemeTokenization ?? false,
        defaultVerificationStrategy: repository.defaultVerificationStrategy ?? 'NONE',
      },
      privileges: { ...settings.privileges, unmask: repository.unmask ?? false },
    },
  };
}

/**
 * The vault's use cases over an in-memory token table, with the real crypto (keys, sealing,
 * fingerprints), verification rules, p2pe test scheme and token service provider simulator.
 */
export async function vaultTestBed(options: { acquirer?: AcquirerVerifier } = {}) {
  const store = new InMemoryTokenStore();
  const keys: VaultKeys = await startTestVaultKeys();
  const fingerprinter = new Fingerprinter(new Secret(randomBytes(32)));
  const sealing = new TokenSealing(keys, fingerprinter);
  const p2pe = new TestP2peScheme(testBdkFromHex(X9_24_SAMPLE_BDK_HEX));
  const metrics = new Metrics();
  const acquirers = new AcquirerRegistry(metrics);
  const verificationService = new InProcessCardVerification(acquirers);
  const verification = new CardVerification(options.acquirer ?? new AcquirerCardVerifier(verificationService, acquirers));
  const sessionCards = new SessionCardSealing(keys);
  return {
    store,
    keys,
    fingerprinter,
    sealing,
    p2pe,
    save: new SaveToken(store, sealing, verification, new BuiltInTokenServiceProviders(true, fingerprinter), p2pe, sessionCards),
    retrieve: new RetrieveToken(store, sealing),
    remove: new DeleteToken(store),
    reencrypt: new ReencryptTokens(store, sealing, keys),
    sessionCards,
    metrics,
    verificationService,
    sealSessionCard: new SealSessionCard(sessionCards),
    callAcquirer: new CallAcquirer(store, sealing, sessionCards, acquirers, createLogger({ service: 'token-vault', level: 'silent' })),
  };
}
