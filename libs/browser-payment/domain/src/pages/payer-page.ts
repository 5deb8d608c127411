import { createHash } from 'node:crypto';
import type { PayerPage } from '@gateway/contracts';
import { html, SafeHtml } from './escape-html';

/** The one stylesheet of every payer page, inline and allowed by its hash alone. */
const STYLE = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f4f6;color:#111827;margin:0}
main{max-width:560px;margin:40px auto;background:#fff;border-radius:10px;box-shadow:0 1px 4px rgba(0,0,0,.12);padding:28px 32px}
header{display:flex;justify-content:space-between;align-items:baseline;border-bottom:1px solid #e5e7eb;padding-bottom:12px;margin-bottom:18px}
header h1{font-size:20px;margin:0}
.test{font-size:12px;color:#92400e;background:#fef3c7;border-radius:4px;padding:2px 8px}
.merchant{color:#4b5563;margin:0 0 4px}
.amount{font-size:32px;font-weight:600;margin:4px 0 16px}
.description{margin:0 0 16px}
table{width:100%;border-collapse:collapse;margin:0 0 16px;font-size:14px}
th,td{text-align:left;padding:6px 4px;border-bottom:1px solid #f3f4f6}
td.num,th.num{text-align:right}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;font-size:14px;margin:0 0 16px}
dt{color:#6b7280}
dd{margin:0}
.actions{display:flex;gap:12px;margin-top:24px}
.actions form{flex:1}
button,a.button{display:block;width:100%;box-sizing:border-box;text-align:center;padding:12px;font-size:16px;border-radius:6px;border:1px solid #d1d5db;background:#fff;cursor:pointer;color:#111827;text-decoration:none}
button.primary,a.button{background:#1d4ed8;border-color:#1d4ed8;color:#fff}
.notice{color:#4b5563}
`;
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/**
 * Nothing but the inline stylesheet may load or run; forms post to the gateway itself, and the
 * page cannot be framed (clickjacking the approve button).
 */
export const PAYER_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${STYLE_HASH}'`,
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export interface PageContent {
  /** Shown in the header and the tab; plain text (escaped). */
  title: string;
  /** Marks the built-in simulators' pages: no real provider, no real money. */
  simulator?: boolean;
  body: SafeHtml;
}

export function payerPage(status: number, content: PageContent): PayerPage {
  const page = html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${content.title}</title>
<style>${new SafeHtml(STYLE)}</style>
</head>
<body>
<main>
<header><h1>${content.title}</h1>${content.simulator ? html`<span class="test">Test simulator</span>` : ''}</header>
${content.body}
</main>
</body>
</html>
`;
  return { kind: 'page', status, html: page.value, contentSecurityPolicy: PAYER_PAGE_CSP };
}
