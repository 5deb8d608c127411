import { invalidValue } from '@gateway/api-fields';
import { GatewayError, JsonObject, MerchantContext } from '@gateway/contracts';
import { isNonPublicHost } from '@gateway/platform';

/**
 * Server-side request forgery, at request time: a live merchant's `order.notificationUrl` must
 * not name a loopback, private or link-local address (the field type already refuses http).
 * Only what the URL itself says is checked here, without DNS; the dispatcher checks the
 * resolved address again on every delivery. Test merchants may name local receivers; the
 * dispatcher reaches them only where the operator allows it (WEBHOOK_ALLOW_PRIVATE_TARGETS).
 */
export function assertNotificationUrlAllowed(body: JsonObject, merchant: MerchantContext): void {
  const order = body.order;
  const url = order !== null && typeof order === 'object' && !Array.isArray(order) ? order.notificationUrl : undefined;
  if (merchant.mode !== 'LIVE' || typeof url !== 'string') {
    return;
  }
  if (isNonPublicHost(new URL(url).hostname)) {
    const problem = invalidValue('order.notificationUrl', url, 'must be an https URL of a public address');
    throw GatewayError.invalidField(problem.field, problem.validationType, problem.explanation);
  }
}
