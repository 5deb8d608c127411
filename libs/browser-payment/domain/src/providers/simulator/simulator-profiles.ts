import type { BrowserPaymentRow, ProviderName } from '@gateway/browser-payment/data-access';
import { type JsonObject, PROVIDER_SIMULATOR_ACQUIRER_IDS } from '@gateway/contracts';
import { html, SafeHtml } from '../../pages/escape-html';
import { providerAOptions } from '../../payment/payment-response';
import { requestOf } from '../../payment/stored-request';
import { type ConfirmAllowance, SIMULATOR_ALLOWANCE } from '../confirm-allowance';

/** What tells the three simulators apart: their name, their page's own part, their payer. */
export interface SimulatorProfile {
  provider: ProviderName;
  /** The provider's name on its page. */
  title: string;
  /** `transaction.acquirer.id` of its payments (contracts, acquirer-routing.ts: the edge names it too). */
  acquirerId: string;
  /** Start of the references it hands out (payments, refunds). */
  referencePrefix: string;
  /** The part of the payer's page only this kind of provider shows. */
  details(payment: BrowserPaymentRow): SafeHtml;
  /** How the provider reports the payer's account once the payer approved (already masked). */
  payer?: JsonObject;
  /** How far above the payer's approval a merchant's confirm may execute (ProviderAdapter.highestConfirmable). */
  confirmAllowance: ConfirmAllowance;
}

/** A wallet: the payer logs in, sees the shop's shipping address (unless hidden) and approves. */
const PROVIDER_A: SimulatorProfile = {
  provider: 'provider_a',
  title: 'Provider A wallet',
  acquirerId: PROVIDER_SIMULATOR_ACQUIRER_IDS.provider_a,
  referencePrefix: 'PA',
  confirmAllowance: SIMULATOR_ALLOWANCE,
  details(payment) {
    const request = requestOf(payment);
    const options = providerAOptions(request);
    const address = request.shipping?.address;
    if (!options.displayShippingAddress || !address) {
      return html``;
    }
    const contact = request.shipping?.contact;
    const name = [contact?.firstName, contact?.lastName].filter(Boolean).join(' ');
    const lines = [name, address.company, address.street, address.street2, [address.postcodeZip, address.city].filter(Boolean).join(' '), address.stateProvince, address.country].filter(
      (line): line is string => Boolean(line),
    );
    return html`<dl id="shipping"><dt>Ship to</dt><dd>${lines.map((line) => html`${line}<br>`)}</dd>
<dt></dt><dd class="notice">${!options.overrideShippingAddress ? 'The shop set this address; it cannot be changed here.' : 'You can change this address in your wallet.'}</dd></dl>`;
  },
  payer: { accountEmail: 'payer@wallet.example', accountHolder: 'Simulated Payer' },
};

/** A bank transfer from the bank the merchant collected (German bank identifier). */
const PROVIDER_B: SimulatorProfile = {
  provider: 'provider_b',
  title: 'Provider B bank transfer',
  acquirerId: PROVIDER_SIMULATOR_ACQUIRER_IDS.provider_b,
  referencePrefix: 'PB',
  confirmAllowance: SIMULATOR_ALLOWANCE,
  details(payment) {
    const bank = requestOf(payment).sourceOfFunds.provided?.provider_b?.bankIdentifier ?? '';
    return html`<dl id="bank"><dt>Bank</dt><dd>Simulated bank, bank identifier <span class="bank-identifier">${bank}</span></dd></dl>
<p class="notice">You will approve the transfer in your bank's online banking.</p>`;
  },
};

/** An online banking transfer: the payer's bank account is known once the payer approved. */
const PROVIDER_C: SimulatorProfile = {
  provider: 'provider_c',
  title: 'Provider C online banking',
  acquirerId: PROVIDER_SIMULATOR_ACQUIRER_IDS.provider_c,
  referencePrefix: 'PC',
  confirmAllowance: SIMULATOR_ALLOWANCE,
  details() {
    return html`<p class="notice">Log in to your online banking to transfer the amount to the shop.</p>`;
  },
  payer: { bankAccountHolder: 'Simulated Payer', bic: 'SIMUDEFFXXX', country: 'DEU', iban: 'xxxxxxxxxxxxxxxxxx3000' },
};

export const SIMULATOR_PROFILES: Readonly<Record<ProviderName, SimulatorProfile>> = {
  provider_a: PROVIDER_A,
  provider_b: PROVIDER_B,
  provider_c: PROVIDER_C,
};
