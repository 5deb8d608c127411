/**
 * The time rules read (an agreement's start date, the time of record). Injected so tests can
 * fix it; the test acquirer keeps its own clock for expiries.
 */
export type Clock = () => Date;

export const CLOCK = Symbol('CLOCK');

export const systemClock: Clock = () => new Date();
