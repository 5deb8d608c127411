/**
 * The Postgres channel a committed change of a merchant row is notified on, with the merchant id
 * as payload (the trigger of migration NotifyMerchantChanges1765000000000).
 */
export const MERCHANT_CHANGES_CHANNEL = 'edge_merchant_changed';

/**
 * The payload of a TRUNCATE of the merchants (migration NotifyMerchantsTruncated1765100000000):
 * every merchant changed. Never a merchant id, which is letters, digits, `_` and `-`.
 */
export const MERCHANT_CHANGES_ALL = '*';
