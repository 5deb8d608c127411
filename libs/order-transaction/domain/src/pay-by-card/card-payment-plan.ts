import {
  AcquirerCard,
  AcquirerCardholder,
  ExternalAuthentication,
  externalAuthenticationOf,
  Pan,
  parseCardExpiry,
  SecurityCode,
} from '@gateway/acquirer';
import {
  type AcquirerCallSource,
  type Agreement,
  type CardPaymentRequest,
  type ExplicitCardFields,
  GatewayError,
  isStandaloneRefundOrder,
  type LedgerOrderView,
  type OperationSession,
} from '@gateway/contracts';
import { Money } from '@gateway/money';
import type { AgreementTermsRow } from '@gateway/order-transaction/data-access';
import { agreementForOperation } from '../agreements/agreement-terms';
import { sessionMayCompleteCard } from '../card-operation/session-card';
import { invalid, missing, moneyField } from '../request-errors/request-errors';

const CARD = 'sourceOfFunds.provided.card';

/**
 * Where the card of an AUTHORIZE or PAY comes from:
 *   ACQUIRER  the request gives the whole card: order-transaction calls the connector itself
 *             (the card arrived in the request anyway);
 *   VAULT     a token and/or the named session's sealed card, completed by the request's own
 *             card fields (explicit > session > token): only the vault opens them, and it makes
 *             the acquirer call (token-vault.acquirer.call.v1), so the PAN never enters this
 *             service (docs/card-custody.md).
 */
export type CardPaymentRoute = { kind: 'ACQUIRER'; card: AcquirerCard } | { kind: 'VAULT'; source: AcquirerCallSource };

export interface CardPaymentPlan {
  apiOperation: 'AUTHORIZE' | 'PAY';
  type: 'AUTHORIZATION' | 'PAYMENT';
  /** order.amount: what is asked for (the issuer may approve less when partial amounts are accepted). */
  amount: Money;
  taxAmount: Money | null;
  acceptPartialAmount: boolean;
  /** The request's own card fields (over the session's and the token's). */
  explicit: ExplicitCardFields;
  cardholder?: AcquirerCardholder;
  /** 3-D Secure performed elsewhere, passed to the issuer as given. */
  authentication?: ExternalAuthentication;
  /**
   * The stored-credential agreement, passed to the issuer and answered: the request's, with the
   * terms it leaves out taken from the established agreement (docs/decisions/agreements.md).
   */
  agreement?: Agreement;
  route: CardPaymentRoute;
  /**
   * `transaction.acquirer.id` before the acquirer answers (the reservation's PENDING body, an
   * UNKNOWN outcome): the acquirer the payment is sent to, chosen before the reservation
   * (PayByCard). Absent only for a live merchant routed to none, whose payment is refused.
   */
  acquirerId?: string;
}

/** What a card payment is planned with besides the request and the order. */
export interface CardPaymentContext {
  /** The time the agreement rules read (a start date the request gives is not in the past). */
  now: Date;
  /** The named payment session, with its card sealed by the vault (if it has one). */
  session?: OperationSession;
  /** The agreement of the request's id as established (null or absent: none yet, or no id). */
  established?: AgreementTermsRow | null;
}

/**
 * What an AUTHORIZE or PAY means on the order as begin saw it (null: a new order). Throws the
 * 400 of a request that cannot be one: an agreement the rules refuse (as VERIFY's: its type
 * unchanged, a given start date not in the past, amountVariability for RECURRING), an order a
 * standalone refund opened, an amount in another currency than the order's, no card from any
 * source, an incomplete card with nothing to complete it.
 */
export function planCardPayment(request: CardPaymentRequest, order: LedgerOrderView | null, context: CardPaymentContext): CardPaymentPlan {
  const { session } = context;
  const agreement = agreementForOperation(request.agreement, context.established ?? null, request.order.currency, context.now, {
    storedCredential: request.sourceOfFunds?.token !== undefined,
  });
  const amount = money('order.amount', request.order.amount, request.order.currency);
  if (order && isStandaloneRefundOrder(order.transactions)) {
    throw GatewayError.invalidRequest(`Order '${order.id}' was opened by a standalone refund: it takes no payment. A payment needs an order id of its own.`);
  }
  if (order && amount.currency !== order.currency) {
    throw invalid('order.currency', amount.currency, `The order's currency is ${order.currency}.`);
  }
  const taxAmount = request.order.taxAmount === undefined ? null : money('order.taxAmount', request.order.taxAmount, amount.currency);
  const explicit = explicitFields(request);
  const base = {
    apiOperation: request.apiOperation,
    type: request.apiOperation === 'AUTHORIZE' ? ('AUTHORIZATION' as const) : ('PAYMENT' as const),
    amount,
    taxAmount,
    acceptPartialAmount: request.order.acceptPartialAmount === true,
    explicit,
    ...cardholderOf(request),
    ...issuerContextOf(request, agreement),
  };
  const token = request.sourceOfFunds?.token;
  const sealed = session?.sealedCard === undefined ? undefined : { value: session.sealedCard, bindingId: session.id };
  const complete = explicit.number !== undefined && explicit.expiry !== undefined;
  if (token !== undefined || (sealed && (!complete || sessionMayCompleteCard(explicit, session)))) {
    return { ...base, route: { kind: 'VAULT', source: { ...(token !== undefined ? { token } : {}), ...(sealed ? { sealed } : {}) } } };
  }
  return { ...base, route: { kind: 'ACQUIRER', card: acquirerCardOf(request, explicit) } };
}

function explicitFields(request: CardPaymentRequest): ExplicitCardFields {
  const card = request.sourceOfFunds?.provided?.card;
  return {
    ...(card?.number !== undefined ? { number: card.number } : {}),
    ...(card?.expiry ? { expiry: { month: card.expiry.month, year: card.expiry.year } } : {}),
    ...(card?.securityCode !== undefined ? { securityCode: card.securityCode } : {}),
    ...(card?.nameOnCard !== undefined ? { nameOnCard: card.nameOnCard } : {}),
  };
}

/** From here on the number and security code exist only as Pan and SecurityCode, which print masked. */
function acquirerCardOf(request: CardPaymentRequest, explicit: ExplicitCardFields): AcquirerCard {
  if (!request.sourceOfFunds) {
    throw missing('sourceOfFunds', 'A card payment needs a card: sourceOfFunds.provided.card, sourceOfFunds.token or a session holding a card.');
  }
  if (explicit.number === undefined) {
    throw missing(`${CARD}.number`, 'The card number is required (or sourceOfFunds.token, or a session holding a card).');
  }
  if (explicit.expiry === undefined) {
    throw missing(`${CARD}.expiry`, 'The card expiry is required to pay with a card.');
  }
  return {
    number: Pan.of(explicit.number),
    expiry: parseCardExpiry(explicit.expiry.month, explicit.expiry.year),
    ...(explicit.securityCode !== undefined ? { securityCode: SecurityCode.of(explicit.securityCode) } : {}),
    ...(explicit.nameOnCard !== undefined ? { nameOnCard: explicit.nameOnCard } : {}),
  };
}

/** The billing address and names the acquirer checks (AVS). */
function cardholderOf(request: CardPaymentRequest): { cardholder?: AcquirerCardholder } {
  const address = request.billing?.address;
  const customer = request.customer;
  if (!address && !customer) {
    return {};
  }
  return {
    cardholder: {
      ...(address ? { billingAddress: { ...address } } : {}),
      ...(customer?.firstName !== undefined ? { firstName: customer.firstName } : {}),
      ...(customer?.lastName !== undefined ? { lastName: customer.lastName } : {}),
      ...(customer?.email !== undefined ? { email: customer.email } : {}),
    },
  };
}

function issuerContextOf(request: CardPaymentRequest, agreement: Agreement | undefined): { authentication?: ExternalAuthentication; agreement?: Agreement } {
  const authentication = externalAuthenticationOf(request.authentication);
  return {
    ...(authentication ? { authentication } : {}),
    ...(agreement ? { agreement: { ...agreement } } : {}),
  };
}

/** A request amount of the group `field` belongs to (`order.amount`: `order.currency`), as Money. */
export function money(field: string, amount: string, currency: string): Money {
  return moneyField(field, amount, field.replace(/\.[a-zA-Z]+$/, '.currency'), currency);
}
