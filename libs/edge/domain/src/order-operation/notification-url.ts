import { invalidValue } from '@gateway/api-fields';
import { GatewayError, JsonObject, jsonObjectAt, MerchantContext } from '@gateway/contracts';
import { isNonPublicHost } from '@gateway/platform';

/**
 * Where a live merchant's `order.notificationUrl` may point, checked at request time: a public
 * address (server-side request forgery: no loopback, private or link-local address; the field
 * type already refuses http), on HTTPS's own port, the only one the dispatchers may reach
 * (k8s/base/network-policies/webhook-dispatcher.yaml): a URL on another port would be accepted
 * and then retried for a day without a chance. Only what the URL itself says is checked here,
 * without DNS; the dispatcher checks the resolved address again on every delivery. Test
 * merchants may name local receivers on any port; the dispatcher reaches them only where the
 * operator allows it (WEBHOOK_ALLOW_PRIVATE_TARGETS).
 */
export function assertNotificationUrlAllowed(body: JsonObject, merchant: MerchantContext): void {
  const url = jsonObjectAt(body, 'order')?.notificationUrl;
  if (merchant.mode !== 'LIVE' || typeof url !== 'string') {
    return;
  }
  const { hostname, port } = new URL(url);
  // URL leaves the port empty when it is the scheme's default (443 for https).
  const reason = isNonPublicHost(hostname) ? 'must be an https URL of a public address' : port !== '' ? 'must use port 443' : undefined;
  if (reason) {
    const problem = invalidValue('order.notificationUrl', url, reason);
    throw GatewayError.invalidField(problem.field, problem.validationType, problem.explanation);
  }
}
