/**
 * The Postgres channel a committed change of a merchant row is notified on, with the merchant id
 * as payload (the trigger of migration NotifyMerchantChanges1765000000000).
 */
export const MERCHANT_CHANGES_CHANNEL = 'edge_merchant_changed';
