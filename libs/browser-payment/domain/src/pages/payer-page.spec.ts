import { createHash } from 'node:crypto';
import { html } from './escape-html';
import { decisionBeforeJourneyPage, journeyOverPage, paymentExpiredPage, paymentNotFoundPage } from './journey-pages';
import { PAYER_PAGE_CSP, payerPage } from './payer-page';

describe('payer pages', () => {
  it('allow exactly their own inline stylesheet and nothing else', () => {
    const page = payerPage(200, { title: 'T', body: html`<p>x</p>` });
    const style = /<style>([\s\S]*?)<\/style>/.exec(page.html)![1];
    const hash = createHash('sha256').update(style).digest('base64');
    expect(page.contentSecurityPolicy).toBe(PAYER_PAGE_CSP);
    expect(PAYER_PAGE_CSP).toBe(`default-src 'none'; style-src 'sha256-${hash}'; base-uri 'none'; frame-ancestors 'none'`);
    expect(page.html).not.toMatch(/<script|<link|<img/i);
  });

  it('escape the title', () => {
    expect(payerPage(200, { title: '<x>', body: html`` }).html).toContain('<title>&lt;x&gt;</title>');
  });

  it('answer dead links with 404 or 410 and say what to do, without telling why a token is unknown', () => {
    expect([paymentNotFoundPage().status, paymentExpiredPage().status, journeyOverPage().status]).toEqual([404, 410, 410]);
    expect(paymentNotFoundPage().html).toContain('start the payment again');
    expect(paymentExpiredPage().html).toContain('expired');
    expect(journeyOverPage().html).toContain('already been used');
    expect(decisionBeforeJourneyPage().status).toBe(410);
    expect(decisionBeforeJourneyPage().html).toContain('start the payment from there');
  });
});
