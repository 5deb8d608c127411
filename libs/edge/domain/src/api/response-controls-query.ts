import { AuthMethod, GatewayError, MerchantContext, unmaskRequested } from '@gateway/contracts';

const SENSITIVE_DATA = 'responseControls.sensitiveData';

/**
 * A GET has no body: `responseControls.sensitiveData` comes as a query parameter, as the real
 * gateway takes it (`GET .../token/{tokenid}?responseControls.sensitiveData=UNMASK`). It is the
 * only parameter the edge takes; anything else, a repeated parameter or a value the spec's
 * String(1-50) does not allow is a 400. Returns the field as a request would carry it.
 */
export function responseControlsFromQuery(url: string): { responseControls?: { sensitiveData: string } } {
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  const values: string[] = [];
  for (const [name, value] of new URLSearchParams(query)) {
    if (name !== SENSITIVE_DATA) {
      throw GatewayError.invalidRequest(`Only ${SENSITIVE_DATA} may be given in the query string of this request.`);
    }
    values.push(value);
  }
  // No parameter at all: no query, `?`, or only separators (`?&&`).
  if (values.length === 0) {
    return {};
  }
  if (values.length > 1) {
    throw GatewayError.invalidField(SENSITIVE_DATA, 'INVALID', `The value is invalid. Give ${SENSITIVE_DATA} once.`);
  }
  const [value] = values;
  if (value.length < 1 || value.length > 50 || /\p{Cc}/u.test(value)) {
    throw GatewayError.invalidField(SENSITIVE_DATA, 'INVALID', 'The value is invalid. It must be 1 to 50 characters, without control characters.');
  }
  return { responseControls: { sensitiveData: value } };
}

/** The UNMASK rule (contracts' `unmaskRequested`) for a GET: true when the answer may show full numbers. */
export function unmaskRequestedInQuery(url: string, merchant: MerchantContext, authMethod: AuthMethod): boolean {
  return unmaskRequested(responseControlsFromQuery(url), merchant, authMethod);
}
