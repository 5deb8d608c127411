/**
 * A start that cannot go on for a reason its message states in full, with what to do about it
 * (a port or data folder another process holds, a folder this user cannot write): mains log the
 * message alone, not a stack trace through the code that found it.
 */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}
