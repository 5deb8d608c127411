import type { BrowserPaymentRow, SimulatedPaymentStatus } from '@gateway/browser-payment/data-access';
import type { PayerPage } from '@gateway/contracts';
import { Money } from '@gateway/money';
import { html, SafeHtml } from '../../pages/escape-html';
import { payerPage } from '../../pages/payer-page';
import { requestOf } from '../../payment/stored-request';
import type { ProviderPageContext } from '../provider-adapter';
import type { SimulatorProfile } from './simulator-profiles';

/**
 * The simulated provider's page: what the payer pays whom for what, and the approve and cancel
 * buttons. Every value the merchant sent is escaped by `html`.
 */
export function simulatorPage(profile: SimulatorProfile, context: ProviderPageContext, status: SimulatedPaymentStatus): PayerPage {
  const { payment } = context;
  const body =
    status === 'CREATED'
      ? html`${summary(payment, context.merchantName)}${profile.details(payment)}
<div class="actions">
<form method="post" action="${context.decisionPath('cancel')}"><button id="cancel" type="submit">Cancel</button></form>
<form method="post" action="${context.decisionPath('approve')}"><button id="approve" class="primary" type="submit">Approve payment</button></form>
</div>`
      : html`${summary(payment, context.merchantName)}
<p class="notice" id="decided">${status === 'CANCELLED' || status === 'ABANDONED' ? 'You cancelled this payment.' : 'You approved this payment.'}</p>
<div class="actions"><a class="button" id="continue" href="${context.returnUrl}">Return to the shop</a></div>`;
  return payerPage(200, { title: profile.title, simulator: true, body });
}

function summary(payment: BrowserPaymentRow, merchantName: string): SafeHtml {
  const order = requestOf(payment).order;
  const currency = payment.currency;
  const money = (amount: string) => `${Money.of(amount, currency).toFixed()} ${currency}`;
  const subTotals: [string, string | undefined][] = [
    ['Items', order.itemAmount],
    ['Shipping and handling', order.shippingAndHandlingAmount],
    ['Tax', order.taxAmount],
  ];
  return html`<p class="merchant">Pay <strong id="merchant">${merchantName}</strong></p>
<p class="amount" id="amount">${money(payment.amount)}</p>
${order.description ? html`<p class="description" id="description">${order.description}</p>` : ''}
${
  order.item?.length
    ? html`<table id="items"><thead><tr><th>Item</th><th class="num">Quantity</th><th class="num">Unit price</th></tr></thead><tbody>
${order.item.map(
  (item) => html`<tr><td>${item.name}${item.description ? html`<br><small>${item.description}</small>` : ''}</td><td class="num">${item.quantity}</td><td class="num">${money(item.unitPrice)}</td></tr>
`,
)}</tbody></table>`
    : ''
}
${
  subTotals.some(([, amount]) => amount !== undefined)
    ? html`<dl id="totals">${subTotals.map(([label, amount]) => (amount === undefined ? '' : html`<dt>${label}</dt><dd>${money(amount)}</dd>`))}</dl>`
    : ''
}`;
}
