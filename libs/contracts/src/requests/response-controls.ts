import type { AuthMethod } from '../envelope';
import { GatewayError } from '../errors';
import type { MerchantContext } from '../merchant-context';
import type { ResponseControls } from './shared-groups';

/**
 * `responseControls.sensitiveData=UNMASK` returns full card and account numbers only with the
 * merchant's permission and certificate authentication (spec: Authentication; ARCHITECTURE 6);
 * asking without them is a 400 on that field. True when the response may show full numbers.
 */
export function unmaskRequested(
  request: { responseControls?: ResponseControls },
  merchant: MerchantContext,
  authMethod: AuthMethod,
): boolean {
  if (request.responseControls?.sensitiveData !== 'UNMASK') {
    return false;
  }
  if (!merchant.settings.privileges.unmask || authMethod !== 'CERTIFICATE') {
    throw GatewayError.invalidField(
      'responseControls.sensitiveData',
      'INVALID',
      "Value 'UNMASK' is invalid. Unmasked card numbers need the merchant's permission and certificate authentication.",
    );
  }
  return true;
}
