import type { PayerPage } from '@gateway/contracts';

/**
 * The edge's own pages for a payer when browser-payment gave none: fixed text, no value from
 * the request in them (a support code is our own hex), so there is nothing to escape.
 */
function page(status: number, title: string, text: string): PayerPage {
  const html = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>${title}</title></head>
<body><h1>${title}</h1><p>${text}</p></body></html>
`;
  return { kind: 'page', status, html, contentSecurityPolicy: "default-src 'none'; base-uri 'none'; frame-ancestors 'none'" };
}

export function payerNotFoundPage(): PayerPage {
  return page(404, 'Payment not found', 'This payment link is not valid. Please go back to the shop and start the payment again.');
}

export function payerMerchantDisabledPage(): PayerPage {
  return page(403, 'Payment not available', 'This shop cannot take payments at the moment. Nothing was paid. Please go back to the shop.');
}

export function payerUnavailablePage(): PayerPage {
  return page(503, 'Please try again', 'The payment is busy at the moment. Please reload this page in a few seconds.');
}

export function payerFailurePage(supportCode: string): PayerPage {
  const code = /^[0-9A-F]{1,32}$/.test(supportCode) ? supportCode : 'unknown';
  return page(500, 'Something went wrong', `The payment could not be processed. If this keeps happening, tell the shop this code: ${code}.`);
}
