import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Secret } from '@gateway/crypto';

/**
 * How a webhook notification proves where it comes from (docs/webhooks.md). The signature
 * header is `t=<unix seconds>,v1=<hex>` with one `v1` per valid secret (two during a secret
 * rotation), each the HMAC-SHA256, keyed with the merchant's notification secret, of
 * `<t>.<notification id>.<raw body>`: the timestamp lets receivers refuse old replays and the
 * id in the signed text stops a replay from passing as a new notification.
 */
export const NOTIFICATION_HEADERS = {
  id: 'X-Notification-Id',
  attempt: 'X-Notification-Attempt',
  secret: 'X-Notification-Secret',
  signature: 'X-Notification-Signature',
} as const;

export function signatureBase(timestamp: number, notificationId: string, body: string): string {
  return `${timestamp}.${notificationId}.${body}`;
}

export function signNotification(secrets: Secret<string>[], timestamp: number, notificationId: string, body: string): string {
  const base = signatureBase(timestamp, notificationId, body);
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${hmacHex(s.reveal(), base)}`)].join(',');
}

/**
 * The receiver's side, as docs/webhooks.md describes it: the header must carry a `v1` matching
 * the HMAC under `secret` and a timestamp within `toleranceSeconds` of `nowSeconds`.
 */
export function verifyNotificationSignature(
  header: string | undefined,
  check: { secret: string; notificationId: string; body: string; nowSeconds: number; toleranceSeconds: number },
): boolean {
  if (!header) {
    return false;
  }
  const parts = header.split(',').map((part) => part.trim().split('='));
  const timestamp = Number(parts.find(([key]) => key === 't')?.[1]);
  if (!Number.isInteger(timestamp) || Math.abs(check.nowSeconds - timestamp) > check.toleranceSeconds) {
    return false;
  }
  const expected = Buffer.from(hmacHex(check.secret, signatureBase(timestamp, check.notificationId, check.body)), 'hex');
  return parts
    .filter(([key, value]) => key === 'v1' && /^[0-9a-f]{64}$/.test(value ?? ''))
    .some(([, value]) => timingSafeEqual(Buffer.from(value, 'hex'), expected));
}

function hmacHex(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text, 'utf8').digest('hex');
}
