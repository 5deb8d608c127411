import type { PayerPage } from '@gateway/contracts';
import type { FastifyReply } from 'fastify';

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

/**
 * What every answer to a payer carries: the redirect token in its URL stays out of other sites'
 * hands (no Referer leaves these pages, none is cached).
 */
export function withPayerHeaders(reply: FastifyReply): FastifyReply {
  return reply.header('Referrer-Policy', 'no-referrer').header('Cache-Control', 'no-store').header('X-Content-Type-Options', 'nosniff');
}

/** A page to the payer's browser, which cannot be framed; a busy one says when to reload. */
export function sendPayerPage(reply: FastifyReply, page: PayerPage): void {
  withPayerHeaders(reply);
  if (page.status === 503) {
    void reply.header('Retry-After', '2');
  }
  void reply
    .status(page.status)
    .header('Content-Type', 'text/html; charset=utf-8')
    .header('Content-Security-Policy', page.contentSecurityPolicy)
    .header('X-Frame-Options', 'DENY')
    .send(page.html);
}
