import { GatewayError, RequestEnvelope, ResponseControls } from '@gateway/contracts';

/**
 * `responseControls.sensitiveData=UNMASK` returns a full card number only with the merchant's
 * permission and certificate authentication (ARCHITECTURE 6); without them it is a 400 on the
 * field, whatever the refund would have shown.
 */
export function unmaskRequested(request: { responseControls?: ResponseControls }, envelope: RequestEnvelope): boolean {
  if (request.responseControls?.sensitiveData !== 'UNMASK') {
    return false;
  }
  if (!envelope.merchant.settings.privileges.unmask || envelope.authMethod !== 'CERTIFICATE') {
    throw GatewayError.invalidField(
      'responseControls.sensitiveData',
      'INVALID',
      "Value 'UNMASK' is invalid. Unmasked card numbers need the merchant's permission and certificate authentication.",
    );
  }
  return true;
}
