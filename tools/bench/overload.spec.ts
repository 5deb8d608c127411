import { UNANSWERED_OPERATION_EXPLANATION } from '@gateway/edge/domain';
import { classifyAnswer, MAY_HAVE_BEEN_PROCESSED, OrderInLedger, OverloadAnswers, overloadProblems, summarizeLedger } from './overload';

const busy = (explanation: string) => JSON.stringify({ error: { cause: 'SERVER_BUSY', explanation }, result: 'ERROR' });
const PLAIN = 'The gateway is busy. Please retry the request.';
const answer = (status: number, body: string) => ({ status, body, retryAfter: '1', latencyMs: 5 });

describe('overload: what each answer tells the merchant', () => {
  it('tells the edge\'s two SERVER_BUSY explanations apart by the words of its timed-out one', () => {
    expect(UNANSWERED_OPERATION_EXPLANATION).toContain(MAY_HAVE_BEEN_PROCESSED);
    expect(PLAIN).not.toContain(MAY_HAVE_BEEN_PROCESSED);
    expect(classifyAnswer(answer(503, busy(UNANSWERED_OPERATION_EXPLANATION)))).toBe('busy-may-have-processed');
    expect(classifyAnswer(answer(503, busy(PLAIN)))).toBe('busy');
  });

  it('counts a success only as 201 with result SUCCESS', () => {
    expect(classifyAnswer(answer(201, '{"result":"SUCCESS","transaction":{"id":"refund-1"}}'))).toBe('success');
    expect(classifyAnswer(answer(201, '{"result":"FAILURE"}'))).toBe('other');
    expect(classifyAnswer(answer(200, '{"result":"SUCCESS"}'))).toBe('other');
  });

  it('holds a 503 to the spec\'s shape and Retry-After, and a failed request to no answer', () => {
    expect(classifyAnswer({ ...answer(503, busy(PLAIN)), retryAfter: undefined })).toBe('other');
    expect(classifyAnswer(answer(503, JSON.stringify({ error: { cause: 'SERVER_FAILED', explanation: 'x' }, result: 'ERROR' })))).toBe('other');
    expect(classifyAnswer(answer(503, JSON.stringify({ error: { cause: 'SERVER_BUSY' }, result: 'ERROR' })))).toBe('other');
    expect(classifyAnswer(answer(503, 'Service Unavailable'))).toBe('other');
    expect(classifyAnswer(answer(500, busy(PLAIN)))).toBe('other');
    expect(classifyAnswer({ failed: 'timeout', reason: 'UND_ERR_HEADERS_TIMEOUT' })).toBe('no-answer');
    expect(classifyAnswer({ failed: 'error', reason: 'ECONNRESET' })).toBe('no-answer');
  });

  it('keeps each request\'s class, the successes\' latency and a few other answers', () => {
    const answers = new OverloadAnswers();
    answers.record(0, { ...answer(201, '{"result":"SUCCESS"}'), latencyMs: 10 });
    answers.record(1, { ...answer(201, '{"result":"SUCCESS"}'), latencyMs: 30 });
    answers.record(2, { ...answer(503, busy(UNANSWERED_OPERATION_EXPLANATION)), latencyMs: 10_000 });
    answers.record(3, answer(502, 'bad gateway'));
    answers.record(4, { failed: 'timeout', reason: 'UND_ERR_CONNECT_TIMEOUT' });
    answers.record(5, { failed: 'error', reason: 'ECONNRESET' });
    answers.record(6, { failed: 'error', reason: 'ECONNRESET' });
    expect(answers.counts()).toEqual({ success: 2, 'busy-may-have-processed': 1, busy: 0, other: 1, 'no-answer': 3 });
    expect(answers.unanswered).toEqual({ 'timeout (UND_ERR_CONNECT_TIMEOUT)': 1, ECONNRESET: 2 });
    // The 503's 10 s is not a success's latency.
    expect(answers.successLatency()).toEqual({ p50: 10, p99: 30 });
    expect(answers.otherSamples).toEqual(['502 bad gateway']);
    expect(answers.classes.get(2)).toBe('busy-may-have-processed');
  });
});

const row = (orderId: string, refundResult: string | null, more: Partial<OrderInLedger> = {}): OrderInLedger => ({
  orderId,
  refundResult,
  refundStored: refundResult !== null,
  overCaptured: false,
  totalMismatch: false,
  ...more,
});

describe('overload: the ledger after the backlog drained', () => {
  const orderOf = (n: number) => `o${n}`;

  it('says what the ledger recorded for each request by its answer, and what is left PENDING or UNKNOWN', () => {
    const classes = new Map([
      [0, 'success'],
      [1, 'busy-may-have-processed'],
      [2, 'busy-may-have-processed'],
      [3, 'busy-may-have-processed'],
      [4, 'busy-may-have-processed'],
      [5, 'busy'],
      [6, 'busy'],
    ] as const);
    const ledger = [row('o0', 'SUCCESS'), row('o1', 'SUCCESS'), row('o2', 'PENDING'), row('o3', 'UNKNOWN'), row('o4', null), row('o5', null), row('o6', null)];
    const summary = summarizeLedger(classes, orderOf, ledger);
    expect(summary.byAnswer.success).toEqual({ SUCCESS: 1, FAILURE: 0, PENDING: 0, UNKNOWN: 0, 'not recorded': 0 });
    expect(summary.byAnswer['busy-may-have-processed']).toEqual({ SUCCESS: 1, FAILURE: 0, PENDING: 1, UNKNOWN: 1, 'not recorded': 1 });
    expect(summary.byAnswer.busy).toEqual({ SUCCESS: 0, FAILURE: 0, PENDING: 0, UNKNOWN: 0, 'not recorded': 2 });
    expect(summary).toMatchObject({ pendingLeft: 1, unknownLeft: 1, overCapturedOrders: 0, totalMismatchOrders: 0, withoutStoredResponse: 0, ordersMissing: 0 });
    // A refund left PENDING strands its amount; an UNKNOWN one is the reconciler's to resolve.
    expect(overloadProblems({ success: 1, 'busy-may-have-processed': 4, busy: 2, other: 0, 'no-answer': 0 }, summary)).toEqual(['1 refunds left PENDING']);
  });

  it('a clean run has no problems', () => {
    const classes = new Map([
      [0, 'success'],
      [1, 'busy'],
    ] as const);
    const summary = summarizeLedger(classes, orderOf, [row('o0', 'SUCCESS'), row('o1', null)]);
    expect(overloadProblems({ success: 1, 'busy-may-have-processed': 0, busy: 1, other: 0, 'no-answer': 0 }, summary)).toEqual([]);
  });

  it('names every state the ledger must never hold, and answers that are wrong or missing', () => {
    const classes = new Map([
      [0, 'success'],
      [1, 'busy'],
      [2, 'other'],
      [3, 'no-answer'],
      [4, 'success'],
      [5, 'success'],
      [9, 'success'],
    ] as const);
    const ledger = [
      row('o0', null),
      row('o1', 'SUCCESS'),
      row('o2', 'SUCCESS', { overCaptured: true }),
      row('o3', 'SUCCESS', { totalMismatch: true }),
      row('o4', 'SUCCESS', { refundStored: false }),
      row('o5', 'SUCCESS'),
    ];
    const summary = summarizeLedger(classes, orderOf, ledger);
    expect(overloadProblems({ success: 4, 'busy-may-have-processed': 0, busy: 1, other: 1, 'no-answer': 1 }, summary)).toEqual([
      '1 answers neither 201 SUCCESS nor 503 SERVER_BUSY with Retry-After',
      '1 requests without an answer (none within the client\'s timeout, or the connection failed)',
      '1 refunds answered 201 SUCCESS not recorded SUCCESS',
      '1 refunds answered 503 with the plain explanation (nothing done) recorded all the same',
      '1 orders refunded beyond their captured amount',
      '1 orders whose total refunded differs from their SUCCESS refunds',
      '1 refunds without their stored response',
      '1 orders missing from the ledger',
    ]);
  });
});
