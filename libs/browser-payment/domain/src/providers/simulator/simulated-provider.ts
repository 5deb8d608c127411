import { randomBytes } from 'node:crypto';
import type { PaymentOperation, SimulatedPaymentRow } from '@gateway/browser-payment/data-access';
import type { PayerDecision, PayerReply } from '@gateway/contracts';
import { Money } from '@gateway/money';
import type { Clock } from '../../browser-payment.options';
import type {
  PayerReturn,
  ProviderPageContext,
  ProviderPaymentSpec,
  ProviderResult,
  SimulatedProviderAdapter,
} from '../provider-adapter';
import { simulatorPage } from './simulator-page';
import type { SimulatorProfile } from './simulator-profiles';
import type { SimulatorStore } from './simulator-store';

const EXECUTED = { AUTHORIZE: 'AUTHORIZED', PAY: 'CAPTURED' } as const;

/**
 * A built-in provider for test merchants: a real page where the payer approves or cancels, and
 * books of its own that move money only for what the payer approved. It behaves like a
 * provider would towards the gateway (it never approves what the payer did not), so the
 * gateway's journey, ledger records and refunds are exercised as with a real one.
 */
export class SimulatedProvider implements SimulatedProviderAdapter {
  constructor(
    private readonly profile: SimulatorProfile,
    private readonly store: SimulatorStore,
    private readonly clock: Clock,
  ) {}

  get provider() {
    return this.profile.provider;
  }

  get acquirerId() {
    return this.profile.acquirerId;
  }

  async createPayment(spec: ProviderPaymentSpec): Promise<string> {
    const reference = this.newReference('');
    await this.store.create(
      {
        reference,
        provider: this.profile.provider,
        operation: spec.operation,
        currency: spec.amount.currency,
        amount: spec.amount.toFixed(),
        status: 'CREATED',
        capturedAmount: '0',
        refundedAmount: '0',
      },
      this.clock.now(),
    );
    return reference;
  }

  async payerPage(context: ProviderPageContext): Promise<PayerReply> {
    const simulated = await this.require(context.payment.providerReference);
    return simulatorPage(this.profile, context, simulated.status);
  }

  async decide(reference: string, decision: PayerDecision): Promise<boolean> {
    const to = decision === 'approve' ? 'APPROVED' : 'CANCELLED';
    return (await this.store.move(reference, ['CREATED'], to, this.clock.now())) !== null;
  }

  async payerReturned(reference: string): Promise<PayerReturn> {
    // Back without a decision: abandoned, and from now on it cannot be approved.
    await this.store.move(reference, ['CREATED'], 'ABANDONED', this.clock.now());
    const simulated = await this.require(reference);
    const approved = ['APPROVED', 'AUTHORIZED', 'CAPTURED'].includes(simulated.status);
    return approved ? { outcome: 'APPROVED', ...(this.profile.payer ? { payer: { ...this.profile.payer } } : {}) } : { outcome: 'CANCELLED' };
  }

  async execute(reference: string, operation: PaymentOperation, amount: Money): Promise<ProviderResult> {
    const executed = await this.store.execute(reference, operation, amount.toFixed(), this.clock.now());
    if (executed) {
      return approved('EXECUTED');
    }
    // A repeat of the same execution (a retried confirm) finds it done: the same answer again.
    const simulated = await this.require(reference);
    if (simulated.status !== EXECUTED[operation]) {
      return declined('NOT_APPROVED_BY_PAYER');
    }
    const executedFor = Money.of(simulated.amount, simulated.currency);
    return executedFor.equals(amount) ? approved('EXECUTED') : { ...declined('ALREADY_EXECUTED'), executedFor };
  }

  async reverse(reference: string): Promise<void> {
    await this.store.void(reference, this.clock.now());
  }

  /**
   * One refund per key: the books store it with its outcome, and a repeat is answered that
   * outcome (the same reference, or the same decline) and moves nothing. A repeat asking another
   * amount is refused as providers refuse a reused idempotency key (declined REFUND_ID_REUSED,
   * naming the first request's amount in `refundKeyUsedFor`); it moves nothing either, and the
   * first refund stands.
   */
  async refund(reference: string, refundId: string, amount: Money): Promise<ProviderResult> {
    const refund = await this.store.refund(reference, refundId, amount.toFixed(), this.newReference('R'), this.clock.now());
    if (!refund) {
      throw new Error(`${this.profile.provider} simulator has no payment ${reference}`);
    }
    // The books are in the payment's currency (the gateway refunds only in it): amounts compare as numbers.
    const asked = Money.of(refund.amount, refund.currency);
    if (!asked.amount.equals(amount.amount)) {
      return { ...declined('REFUND_ID_REUSED'), refundKeyUsedFor: asked };
    }
    return refund.approved ? { ...approved(refund.providerCode), reference: refund.reference! } : declined(refund.providerCode);
  }

  private async require(reference: string): Promise<SimulatedPaymentRow> {
    const simulated = await this.store.find(reference);
    if (!simulated) {
      throw new Error(`${this.profile.provider} simulator has no payment ${reference}`);
    }
    return simulated;
  }

  private newReference(kind: '' | 'R'): string {
    return `${this.profile.referencePrefix}${kind}-${randomBytes(10).toString('hex').toUpperCase()}`;
  }
}

function approved(providerCode: string): ProviderResult {
  return { approved: true, gatewayCode: 'APPROVED', providerCode };
}

function declined(providerCode: string): ProviderResult {
  return { approved: false, gatewayCode: 'DECLINED', providerCode };
}
