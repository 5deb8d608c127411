import { FundingMethod, lookupBin } from '@gateway/acquirer';
import type { Pan } from '@gateway/crypto';

export interface CardProfile {
  brand: string;
  scheme: string;
  fundingMethod: FundingMethod;
}

/**
 * Brand, scheme and funding method from the gateway's one BIN table (libs/acquirer), so a card
 * reads the same in token responses as in VERIFY responses. Looked up by BIN alone: the full
 * number never leaves the vault for this.
 */
export function cardProfile(pan: Pan): CardProfile {
  const { brand, scheme, fundingMethod } = lookupBin(pan.bin);
  return { brand, scheme, fundingMethod };
}

/** Whether the number's BIN lies in a range the gateway knows (BASIC verification). */
export function isKnownCardRange(pan: Pan): boolean {
  return lookupBin(pan.bin).brand !== 'UNKNOWN';
}
