import { createHash } from 'node:crypto';
import { canonicalJson } from './sorted-json';

/**
 * The `requestHash` of the ledger's begin/record messages: sha256 of the canonical request body
 * without `correlationId`, which is transient by the spec (a retry may carry another one and is
 * still the same request). Equal for equal bodies whatever their key order.
 */
export function canonicalRequestHash(body: Record<string, unknown>): string {
  const { correlationId: _transient, ...rest } = body;
  return createHash('sha256').update(canonicalJson(rest)).digest('hex');
}
