import { randomBytes } from 'node:crypto';
import type {
  PaymentOperation,
  SimulatedCaptureRow,
  SimulatedPaymentRow,
  SimulatedPaymentStatus,
  SimulatedRefundRow,
} from '@gateway/browser-payment/data-access';
import type { PayerDecision, PayerReply } from '@gateway/contracts';
import { Money } from '@gateway/money';
import type { Clock } from '../../browser-payment.options';
import { highestConfirmable } from '../confirm-allowance';
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

/** What an execution left the payment as: an authorisation stays executed once captured (in part or whole). */
const EXECUTED: Record<PaymentOperation, readonly SimulatedPaymentStatus[]> = { AUTHORIZE: ['AUTHORIZED', 'CAPTURED'], PAY: ['CAPTURED'] };

/**
 * A built-in provider for test merchants: a real page where the payer approves or cancels, and
 * books of its own that move money only for what the payer approved. It behaves like a
 * provider would towards the gateway (it never approves what the payer did not), so the
 * gateway's journey, ledger records, captures, voids and refunds are exercised as with a real one.
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

  highestConfirmable(approved: Money): Money {
    return highestConfirmable(approved, this.profile.confirmAllowance);
  }

  async execute(reference: string, operation: PaymentOperation, amount: Money): Promise<ProviderResult> {
    // As a wallet does, never more than its allowance above what the payer approved (the books'
    // amount until executed, and it does not change before): the gateway refuses such a confirm
    // before it gets here, so this is the provider's own line behind it.
    const before = await this.require(reference);
    if (before.status === 'APPROVED' && amount.greaterThan(this.highestConfirmable(Money.of(before.amount, before.currency)))) {
      return declined('AMOUNT_ABOVE_APPROVAL');
    }
    const executed = await this.store.execute(reference, operation, amount.toFixed(), this.clock.now());
    if (executed) {
      return approved('EXECUTED');
    }
    // A repeat of the same execution (a retried confirm) finds it done: the same answer again.
    const simulated = await this.require(reference);
    if (!EXECUTED[operation].includes(simulated.status)) {
      return declined('NOT_APPROVED_BY_PAYER');
    }
    const executedFor = Money.of(simulated.amount, simulated.currency);
    return executedFor.equals(amount) ? approved('EXECUTED') : { ...declined('ALREADY_EXECUTED'), executedFor };
  }

  async reverse(reference: string): Promise<void> {
    await this.store.void(reference, this.clock.now());
  }

  /** An approval released lapses as an abandoned payment does: its execution is declined (NOT_APPROVED_BY_PAYER). */
  async releaseApproval(reference: string): Promise<boolean> {
    await this.store.move(reference, ['APPROVED'], 'ABANDONED', this.clock.now());
    const simulated = await this.require(reference);
    return !['AUTHORIZED', 'CAPTURED'].includes(simulated.status);
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
    const usedFor = this.otherAmount(reference, refund, amount);
    return usedFor ? { ...declined('REFUND_ID_REUSED'), refundKeyUsedFor: usedFor } : answerOf(refund!);
  }

  /**
   * Captures of an authorisation in parts, each once per key, up to the authorised amount (the
   * books decide on the payment's locked row: SimulatedProviderRepository.capture); a repeat is
   * answered as refunds' repeats are, and another amount under the key is refused
   * (CAPTURE_ID_REUSED, `captureKeyUsedFor`), moving nothing.
   */
  async capture(reference: string, captureId: string, amount: Money): Promise<ProviderResult> {
    const capture = await this.store.capture(reference, captureId, amount.toFixed(), this.newReference('C'), this.clock.now());
    const usedFor = this.otherAmount(reference, capture, amount);
    return usedFor ? { ...declined('CAPTURE_ID_REUSED'), captureKeyUsedFor: usedFor } : answerOf(capture!);
  }

  async voidAuthorization(reference: string): Promise<ProviderResult> {
    if (await this.store.voidAuthorization(reference, this.clock.now())) {
      return approved('VOIDED');
    }
    const simulated = await this.require(reference);
    if (simulated.operation === 'AUTHORIZE' && simulated.status === 'VOIDED') {
      // A repeat (a retry after a lost answer) finds it voided: the same answer, nothing moves.
      return approved('VOIDED');
    }
    return declined(simulated.status === 'CAPTURED' ? 'ALREADY_CAPTURED' : 'NOT_AUTHORIZED');
  }

  /**
   * The amount the key was first used for, when this call asks another: the stored operation is
   * then not this call's answer. The books are in the payment's currency (the gateway refunds and
   * captures only in it): amounts compare as numbers.
   */
  private otherAmount(reference: string, stored: SimulatedRefundRow | SimulatedCaptureRow | null, amount: Money): Money | undefined {
    if (!stored) {
      throw new Error(`${this.profile.provider} simulator has no payment ${reference}`);
    }
    const asked = Money.of(stored.amount, stored.currency);
    return asked.amount.equals(amount.amount) ? undefined : asked;
  }

  private async require(reference: string): Promise<SimulatedPaymentRow> {
    const simulated = await this.store.find(reference);
    if (!simulated) {
      throw new Error(`${this.profile.provider} simulator has no payment ${reference}`);
    }
    return simulated;
  }

  private newReference(kind: '' | 'R' | 'C'): string {
    return `${this.profile.referencePrefix}${kind}-${randomBytes(10).toString('hex').toUpperCase()}`;
  }
}

function approved(providerCode: string): ProviderResult {
  return { approved: true, gatewayCode: 'APPROVED', providerCode };
}

function declined(providerCode: string): ProviderResult {
  return { approved: false, gatewayCode: 'DECLINED', providerCode };
}

/** A refund's or capture's stored outcome, as every call with its key is answered. */
function answerOf(stored: SimulatedRefundRow | SimulatedCaptureRow): ProviderResult {
  return stored.approved ? { ...approved(stored.providerCode), reference: stored.reference! } : declined(stored.providerCode);
}
