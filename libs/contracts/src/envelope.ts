import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { checkedMerchantContext, IsCheckedMerchantContext } from './checked-merchant-context';
import { MerchantContext } from './merchant-context';
import { Verbatim } from './verbatim';

/**
 * PAYER: a payer's browser on the browser-payment pages (`/bpui/...`), which carries no
 * merchant credentials: it is authorised by the payment's redirect token alone. GATEWAY: the
 * gateway acting on its own, with no request from anyone (settling a browser payment whose
 * redirect token expired).
 */
export const AUTH_METHODS = ['PASSWORD', 'CERTIFICATE', 'PAYER', 'GATEWAY'] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

/**
 * What every request to a service carries besides its payload: who is asking, in which API
 * version, under which lock. Services re-validate it like any other input.
 */
export class RequestEnvelope {
  /**
   * Checked with MerchantContext's own rules, once per distinct content, and shared, frozen,
   * between the messages that carry the same (checked-merchant-context.ts).
   */
  @IsCheckedMerchantContext()
  @Verbatim(checkedMerchantContext)
  merchant: MerchantContext;

  /** The version in the request path; responses echo it. */
  @IsInt()
  @Min(1)
  @Max(1000)
  apiVersion: number;

  /** Our own id for this request, on every log line of every process it touches. */
  @IsString()
  @Matches(/^[A-Za-z0-9-]{1,64}$/)
  requestId: string;

  @IsIn(AUTH_METHODS)
  authMethod: AuthMethod;

  /**
   * The per-order lock's fencing token, a decimal integer string. The ledger refuses a write
   * carrying a token older than the last one it stored for the order.
   */
  @IsOptional()
  @Matches(/^[0-9]{1,20}$/)
  fencingToken?: string;
}
