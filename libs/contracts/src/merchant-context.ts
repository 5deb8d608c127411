import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { AVS_RESPONSE_CODES } from './avs-response-codes';

/**
 * A merchant's profile as services see it: every per-merchant setting the spec mentions.
 * The edge owns and stores profiles (schema `edge`) and sends this slice, without secrets,
 * in every request envelope, so services never look a merchant up themselves.
 */
export const TOKEN_GENERATION_STRATEGIES = ['MERCHANT_SUPPLIED', 'RANDOM', 'PRESERVE_6_4'] as const;
export const TOKEN_MANAGEMENT_STRATEGIES = ['UNIQUE_CARD', 'UNIQUE_TOKEN', 'UNIQUE_ACCOUNT_IDENTIFIER'] as const;
export const VERIFICATION_STRATEGIES = ['ACQUIRER', 'BASIC', 'NONE'] as const;
export const MERCHANT_MODES = ['TEST', 'LIVE'] as const;
export const AVS_RULE_ACTIONS = ['NO_ACTION', 'REJECT', 'REVIEW'] as const;

export type TokenGenerationStrategy = (typeof TOKEN_GENERATION_STRATEGIES)[number];
export type TokenManagementStrategy = (typeof TOKEN_MANAGEMENT_STRATEGIES)[number];
export type VerificationStrategy = (typeof VERIFICATION_STRATEGIES)[number];
export type MerchantMode = (typeof MERCHANT_MODES)[number];

export class TokenRepositorySettings {
  /**
   * The live repository id; a test merchant's repository is this id prefixed with `Test`, so
   * an id that itself starts with `Test` is refused (spec: token response, repositoryId).
   */
  @IsString()
  @Matches(/^(?!Test)[\x20-\x7e]{1,12}$/, { message: 'must be 1 to 12 printable ASCII characters not starting with Test' })
  id: string;

  @IsIn(TOKEN_GENERATION_STRATEGIES)
  generation: TokenGenerationStrategy;

  @IsIn(TOKEN_MANAGEMENT_STRATEGIES)
  management: TokenManagementStrategy;

  @IsBoolean()
  schemeTokenization: boolean;

  @IsIn(VERIFICATION_STRATEGIES)
  defaultVerificationStrategy: VerificationStrategy;
}

export class MerchantPrivileges {
  /** Refunds may exceed the captured amount (order EXCESSIVELY_REFUNDED). */
  @IsBoolean()
  excessiveRefund: boolean;

  /** Full card and account numbers may be returned (with certificate auth and UNMASK). */
  @IsBoolean()
  unmask: boolean;

  /** Refunds wait for approval (REFUND_REQUESTED) instead of executing. */
  @IsBoolean()
  refundRequiresApproval: boolean;
}

/** Sealed text of a SealingKeyRing (libs/crypto): base64url. */
const SEALED_VALUE = /^[A-Za-z0-9_-]{40,400}$/;

/**
 * The merchant's webhook notification secret, sealed by the admin CLI under WEBHOOK_SECRET_KEYS
 * (docs/decisions/webhook-notification-secret.md). It travels sealed in every envelope; only
 * order-transaction's webhook dispatcher holds the key that opens it, when it signs a delivery.
 */
export class NotificationSecretSettings {
  @Matches(SEALED_VALUE)
  current: string;

  /** The secret before the last rotation: deliveries are signed with both until previousValidUntil. */
  @IsOptional()
  @Matches(SEALED_VALUE)
  previous?: string;

  /** YYYY-MM-DDThh:mm:ss.SSSZ */
  @IsOptional()
  @IsISO8601({ strict: true })
  previousValidUntil?: string;
}

/** What a sealed notification secret is bound to: it opens only as this merchant's notification secret. */
export function notificationSecretContext(merchantId: string): string {
  return `notification-secret:${merchantId}`;
}

export class NotificationSettings {
  /** Webhook notifications are enabled for this merchant (the spec's "merchant administration" switch). */
  @IsBoolean()
  enabled: boolean;

  /** Issued by the admin CLI when notifications are enabled (or on rotation). */
  @IsOptional()
  @ValidateNested()
  @Type(() => NotificationSecretSettings)
  secret?: NotificationSecretSettings;
}

export class AvsResponseCodeRule {
  /** One of the AVS gateway codes the acquirer answers with: a rule on anything else never fires. */
  @IsIn(AVS_RESPONSE_CODES)
  avsResponseCode: string;

  @IsIn(AVS_RULE_ACTIONS)
  action: (typeof AVS_RULE_ACTIONS)[number];
}

export class TransactionFilteringSettings {
  /** One rule per AVS code, as in a request (docs/decisions/avs-rules-override-per-code.md). */
  @IsArray()
  @ArrayUnique((rule: Partial<AvsResponseCodeRule> | null) => rule?.avsResponseCode, {
    message: 'only one rule may be given for each AVS response code',
  })
  @ValidateNested({ each: true })
  @Type(() => AvsResponseCodeRule)
  avsResponseCodeRules: AvsResponseCodeRule[];
}

/**
 * A stored profile's AVS rules split into those that can apply and those that never could:
 * profiles stored before the codes were checked may hold a rule on a code the acquirer never
 * returns, or a second rule for a code (the first always won). Dropping the unusable ones
 * changes no outcome, so a stored profile keeps working while they are reported
 * (docs/decisions/checked-merchant-context.md, amendment 2026-11-26).
 */
export function usableAvsRules(rules: readonly AvsResponseCodeRule[]): {
  usable: AvsResponseCodeRule[];
  unusable: AvsResponseCodeRule[];
} {
  const usable: AvsResponseCodeRule[] = [];
  const unusable: AvsResponseCodeRule[] = [];
  const named = new Set<string>();
  for (const rule of rules) {
    const code = rule?.avsResponseCode;
    if ((AVS_RESPONSE_CODES as readonly unknown[]).includes(code) && !named.has(code)) {
      named.add(code);
      usable.push(rule);
    } else {
      unusable.push(rule);
    }
  }
  return { usable, unusable };
}

export class TestAcquirerSettings {
  /** Added to every test-acquirer call, so load and lock tests can hold an order busy. */
  @IsInt()
  @Min(0)
  @Max(60_000)
  latencyMs: number;
}

/** A certificate's SHA-256 fingerprint as `openssl x509 -fingerprint -sha256` prints it. */
export const CERTIFICATE_FINGERPRINT = /^[0-9A-F]{2}(:[0-9A-F]{2}){31}$/;

/**
 * The client certificates that authenticate as this merchant (certificate authentication):
 * each one issued by a CA the edge trusts, and registered here by fingerprint or by subject.
 * A subject registers every certificate the CA issues with that subject (renewals need no
 * change); a fingerprint in `revokedFingerprints` is refused whatever else matches.
 */
export class ClientCertificateSettings {
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @Matches(CERTIFICATE_FINGERPRINT, { each: true, message: 'each fingerprint must be 32 hex pairs separated by colons (AB:CD:...)' })
  fingerprints?: string[];

  /** RFC 2253 subject DNs, as `openssl x509 -noout -subject -nameopt RFC2253` prints them. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @Length(3, 1024, { each: true })
  subjects?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10_000)
  @Matches(CERTIFICATE_FINGERPRINT, { each: true, message: 'each fingerprint must be 32 hex pairs separated by colons (AB:CD:...)' })
  revokedFingerprints?: string[];
}

export class MerchantSettings {
  @ValidateNested()
  @Type(() => TokenRepositorySettings)
  tokenRepository: TokenRepositorySettings;

  @ValidateNested()
  @Type(() => MerchantPrivileges)
  privileges: MerchantPrivileges;

  @ValidateNested()
  @Type(() => NotificationSettings)
  notifications: NotificationSettings;

  @ValidateNested()
  @Type(() => TransactionFilteringSettings)
  transactionFiltering: TransactionFilteringSettings;

  @ValidateNested()
  @Type(() => TestAcquirerSettings)
  testAcquirer: TestAcquirerSettings;

  /** Requests per second this merchant may send; 0 means no per-merchant limit. */
  @IsOptional()
  @IsInt()
  @Min(0)
  rateLimitPerSecond?: number;

  @IsOptional()
  @ValidateNested()
  @Type(() => ClientCertificateSettings)
  clientCertificates?: ClientCertificateSettings;
}

export class MerchantContext {
  @IsString()
  id: string;

  @IsIn(MERCHANT_MODES)
  mode: MerchantMode;

  /** The merchant's name as payers see it on browser-payment pages. */
  @IsOptional()
  @IsString()
  @Length(1, 100)
  name?: string;

  @IsDefined()
  @ValidateNested()
  @Type(() => MerchantSettings)
  settings: MerchantSettings;
}

export function defaultMerchantSettings(): MerchantSettings {
  return {
    tokenRepository: {
      id: '1000000001',
      generation: 'RANDOM',
      management: 'UNIQUE_TOKEN',
      schemeTokenization: false,
      defaultVerificationStrategy: 'NONE',
    },
    privileges: { excessiveRefund: false, unmask: false, refundRequiresApproval: false },
    notifications: { enabled: false },
    transactionFiltering: { avsResponseCodeRules: [] },
    testAcquirer: { latencyMs: 0 },
    rateLimitPerSecond: 0,
    clientCertificates: { fingerprints: [], subjects: [], revokedFingerprints: [] },
  };
}
