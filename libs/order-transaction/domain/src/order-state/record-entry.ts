import { deriveOrderState, LedgerEntry, OrderState } from './derive-order-state';
import { assertLedgerRules } from './ledger-rules';

export interface RecordedEntries {
  entries: LedgerEntry[];
  state: OrderState;
}

/**
 * The order's transactions and derived state once `entry` is recorded: appended, or replacing
 * the transaction at `replacing` (an UPDATE). Throws the 400 of a broken money rule instead.
 */
export function recordEntry(
  currency: string,
  before: readonly LedgerEntry[],
  entry: LedgerEntry,
  options: { replacing?: number; excessiveRefundAllowed: boolean },
): RecordedEntries {
  const entries =
    options.replacing === undefined ? [...before, entry] : before.map((e, i) => (i === options.replacing ? entry : e));
  const state = deriveOrderState(currency, entries);
  assertLedgerRules(currency, before, entries, state, entry, options.excessiveRefundAllowed);
  return { entries, state };
}
