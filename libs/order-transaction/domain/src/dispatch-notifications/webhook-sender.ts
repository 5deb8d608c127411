/** One HTTPS POST of a notification. */
export interface WebhookDelivery {
  url: string;
  body: string;
  headers: Record<string, string>;
  /** Whether loopback and private addresses may be reached (test merchants, explicit configuration). */
  allowNonPublic: boolean;
}

/**
 * `delivered`: the receiver answered 2xx. Otherwise `result` says what happened, for the
 * outbox row and the logs (`HTTP 503`, `ECONNREFUSED`, `TIMEOUT`, `REFUSED_NON_PUBLIC_ADDRESS`);
 * it never carries a response body or a secret.
 */
export interface DeliveryResult {
  delivered: boolean;
  result: string;
}

export interface WebhookSender {
  send(delivery: WebhookDelivery): Promise<DeliveryResult>;
}

export const WEBHOOK_SENDER = Symbol('WEBHOOK_SENDER');
