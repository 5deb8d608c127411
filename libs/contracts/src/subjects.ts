/**
 * Every NATS subject, named after the service that owns (answers) it and versioned, so a
 * breaking payload change gets a new subject while the old one keeps serving during a
 * rolling deploy. The transport prepends NATS_SUBJECT_PREFIX (empty in production) so test
 * runs sharing one NATS server never see each other's traffic.
 */
export const SUBJECTS = {
  tokenVault: {
    ping: 'token-vault.ping.v1',
    saveToken: 'token-vault.token.save.v1',
    /** Beyond the spec: POST .../token (create with a generated token), GET and DELETE .../token/{tokenid}. */
    createToken: 'token-vault.token.create.v1',
    retrieveToken: 'token-vault.token.retrieve.v1',
    deleteToken: 'token-vault.token.delete.v1',
    /** Card custody (card-custody.messages.ts): seal a session's card; an acquirer call on a stored card. */
    sealCard: 'token-vault.card.seal.v1',
    acquirerCall: 'token-vault.acquirer.call.v1',
    /** GET .../session/{id} with an authorised UNMASK: the sealed card's number, opened for display. */
    revealCard: 'token-vault.card.reveal.v1',
  },
  orderTransaction: {
    ping: 'order-transaction.ping.v1',
    refund: 'order-transaction.refund.v1',
    /**
     * Card operations on the ledger: VERIFY (moved from verification.verify.v1;
     * docs/decisions/verify-in-order-transaction.md) and, issue 9, AUTHORIZE, PAY, CAPTURE and VOID.
     */
    verify: 'order-transaction.verify.v1',
    authorize: 'order-transaction.authorize.v1',
    pay: 'order-transaction.pay.v1',
    capture: 'order-transaction.capture.v1',
    void: 'order-transaction.void.v1',
    /** The ledger's two steps around every order operation (see ledger.messages.ts). */
    ledgerBegin: 'order-transaction.ledger.begin.v1',
    ledgerRecord: 'order-transaction.ledger.record.v1',
    /** GET .../order/{orderid} and GET .../order/{orderid}/transaction/{transactionid} (retrieval.messages.ts). */
    retrieveOrder: 'order-transaction.order.retrieve.v1',
    retrieveTransaction: 'order-transaction.transaction.retrieve.v1',
    /** An operation naming a session that is gone: its stored response, if it is a replay (FindReplayMessage). */
    findReplay: 'order-transaction.replay.find.v1',
  },
  browserPayment: {
    ping: 'browser-payment.ping.v1',
    initiate: 'browser-payment.initiate.v1',
    confirm: 'browser-payment.confirm.v1',
    /** The ledger asks browser-payment to refund a provider-funded order (provider-refund.messages.ts). */
    refund: 'browser-payment.refund.v1',
    /** The ledger asks browser-payment to capture or void a provider's authorisation (provider-capture.messages.ts). */
    capture: 'browser-payment.capture.v1',
    void: 'browser-payment.void.v1',
    /** The payer's browser on `/bpui/<provider>/...`, forwarded by the edge (payer-journey.messages.ts). */
    payerResolve: 'browser-payment.payer.resolve.v1',
    payerRedirect: 'browser-payment.payer.redirect.v1',
    payerDecide: 'browser-payment.payer.decide.v1',
    payerReturn: 'browser-payment.payer.return.v1',
    /** Payments whose redirect token expired before their journey ended (expired-payment.messages.ts). */
    expiredDue: 'browser-payment.expired.due.v1',
    expiredSettle: 'browser-payment.expired.settle.v1',
  },
  verification: {
    ping: 'verification.ping.v1',
    /** The vault's ACQUIRER verification strategy: a card verified at the acquirer, no order (card-verification.messages.ts). */
    verifyCard: 'verification.card.verify.v1',
  },
} as const;

/**
 * The order operations of `PUT .../order/{orderid}/transaction/{transactionid}`, told apart
 * by `apiOperation`, and the subject of the service that owns each.
 */
export const ORDER_OPERATION_SUBJECTS = {
  VERIFY: SUBJECTS.orderTransaction.verify,
  REFUND: SUBJECTS.orderTransaction.refund,
  INITIATE_BROWSER_PAYMENT: SUBJECTS.browserPayment.initiate,
  CONFIRM_BROWSER_PAYMENT: SUBJECTS.browserPayment.confirm,
  AUTHORIZE: SUBJECTS.orderTransaction.authorize,
  PAY: SUBJECTS.orderTransaction.pay,
  CAPTURE: SUBJECTS.orderTransaction.capture,
  VOID: SUBJECTS.orderTransaction.void,
} as const;

export type OrderApiOperation = keyof typeof ORDER_OPERATION_SUBJECTS;
export const ORDER_API_OPERATIONS = Object.keys(ORDER_OPERATION_SUBJECTS) as OrderApiOperation[];

export function isOrderApiOperation(value: unknown): value is OrderApiOperation {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ORDER_OPERATION_SUBJECTS, value);
}
