import { ReplaceOutcome, SessionLifetime, SessionLookup, SessionState, sessionState, SessionStore, StoredSession } from './session-store';

interface Entry {
  session: StoredSession;
  expiresAt: number;
  forgottenAt: number;
}

const SWEEP_EVERY_MS = 60_000;

/**
 * Payment sessions in memory, for the standalone profile (one process, never production): the
 * same contract as RedisSessionStore, checked by the same tests. Expired data is dropped when
 * read and by a sweep a minute, so sessions do not pile up in a long-running laptop gateway.
 */
export class MemorySessionStore implements SessionStore {
  private readonly entries = new Map<string, Entry>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_EVERY_MS);
    this.sweeper.unref();
  }

  async create(session: StoredSession, lifetime: SessionLifetime): Promise<void> {
    if (this.live(session.id)) {
      throw new Error('session id collision');
    }
    this.entries.set(session.id, this.entry(session, lifetime));
  }

  async find(merchantId: string, id: string): Promise<SessionLookup> {
    const entry = this.entries.get(id);
    if (!entry || entry.session.merchantId !== merchantId || entry.forgottenAt <= this.now()) {
      return { state: 'UNKNOWN' };
    }
    if (entry.expiresAt <= this.now()) {
      return { state: 'EXPIRED' };
    }
    return { state: 'ACTIVE', session: structuredClone(entry.session) };
  }

  async replace(next: StoredSession, expected: SessionState, lifetime: SessionLifetime): Promise<ReplaceOutcome> {
    return this.write(next, expected, () => this.entry(next, lifetime));
  }

  async amend(next: StoredSession, expected: SessionState): Promise<ReplaceOutcome> {
    return this.write(next, expected, (entry) => ({ ...entry, session: structuredClone(next) }));
  }

  private write(next: StoredSession, expected: SessionState, written: (entry: Entry) => Entry): ReplaceOutcome {
    const entry = this.live(next.id);
    if (!entry) {
      return 'GONE';
    }
    const current = sessionState(entry.session);
    const moved = current.version !== expected.version || current.cardSealed !== expected.cardSealed;
    if (moved || entry.session.merchantId !== next.merchantId) {
      return 'CONFLICT';
    }
    this.entries.set(next.id, written(entry));
    return 'REPLACED';
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  private live(id: string): Entry | undefined {
    const entry = this.entries.get(id);
    return entry && entry.expiresAt > this.now() ? entry : undefined;
  }

  private entry(session: StoredSession, lifetime: SessionLifetime): Entry {
    const now = this.now();
    return { session: structuredClone(session), expiresAt: now + lifetime.ttlMs, forgottenAt: now + lifetime.ttlMs + lifetime.expiredNoticeMs };
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, entry] of this.entries) {
      if (entry.forgottenAt <= now) {
        this.entries.delete(id);
      } else if (entry.expiresAt <= now && entry.session.card) {
        // Card data never outlives the session, even while its expiry is still remembered.
        delete entry.session.card;
      }
    }
  }
}
