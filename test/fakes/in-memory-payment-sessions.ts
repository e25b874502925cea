import type { Tx } from '../../src/database/transactions.js';
import type { Actor } from '../../src/payment-status/actor.js';
import {
  CallbackUrls,
  ListedSession,
  NewSession,
  NewTransition,
  PaymentSessionRepository,
  SeededTimes,
  SessionListQuery,
  SessionRecord,
  SessionUpdate,
  TransitionRecord,
} from '../../src/payment-status/payment-session.repository.js';
import type { StoredReport } from '../../src/payment-status/payment-status.shapes.js';
import { isFinal } from '../../src/payment-status/payment-status.types.js';
import { holdsPersonalData } from '../../src/payment-status/personal-data.js';
import { Rollbackable, copy } from './in-memory-transactions.js';

/** A session as stored, with the retention's bookkeeping. */
type StoredSession = SessionRecord & {
  finalAt?: number | null;
  createdAt?: string;
  personalDataErasedAt?: number | null;
  createdAtMs?: number | null;
  createdBy?: Actor | null;
};

interface State {
  sessions: Map<string, StoredSession>;
  transitions: Map<string, TransitionRecord[]>;
}

export class InMemoryPaymentSessions extends PaymentSessionRepository implements Rollbackable {
  private state: State = { sessions: new Map(), transitions: new Map() };
  /** Hot-path reads made, to check what the service keeps in memory. */
  reads = 0;
  /**
   * Runs once before the next conditional update or insert, as another writer would: lets a test
   * move the stored session between the service's read and its write.
   */
  beforeNextWrite?: () => void;

  /**
   * While set, a hot-path read takes its data when it starts but answers only once this settles,
   * as a slow query does: lets a test commit a report while a read is pending.
   */
  readsHeld?: Promise<void>;

  async lookUp(validationKey: string): Promise<SessionRecord | undefined> {
    this.reads++;
    const session = this.state.sessions.get(validationKey);
    const found = session && copy(session);
    await this.readsHeld;
    return found;
  }

  async findIn(_tx: Tx, validationKey: string): Promise<SessionRecord | undefined> {
    const session = this.state.sessions.get(validationKey);
    return session && copy(session);
  }

  private insert(session: SessionRecord, createdBy?: Actor): boolean {
    this.interfere();
    if (this.state.sessions.has(session.validationKey)) return false;
    this.state.sessions.set(session.validationKey, {
      ...copy(session),
      finalAt: isFinal(session.status) ? Date.now() : null,
      createdAtMs: Date.now(),
      createdBy: createdBy ? copy(createdBy) : null,
    });
    return true;
  }

  async list(query: SessionListQuery): Promise<ListedSession[]> {
    return [...this.state.sessions.values()]
      .map((s) => this.listed(s))
      .filter(
        (s) =>
          (query.merchantId === undefined || s.merchantId === query.merchantId) &&
          (query.status === undefined || s.status === query.status) &&
          (query.createdFrom === undefined || (s.createdAtMs ?? 0) >= query.createdFrom) &&
          (query.createdTo === undefined || (s.createdAtMs ?? 0) < query.createdTo) &&
          (!query.after ||
            (s.createdAtMs ?? 0) < query.after.createdAtMs ||
            ((s.createdAtMs ?? 0) === query.after.createdAtMs &&
              s.validationKey < query.after.validationKey)),
      )
      .sort(
        (a, b) =>
          (b.createdAtMs ?? 0) - (a.createdAtMs ?? 0) ||
          (a.validationKey < b.validationKey ? 1 : a.validationKey > b.validationKey ? -1 : 0),
      )
      .slice(0, query.limit);
  }

  async findListed(validationKey: string): Promise<ListedSession | undefined> {
    const session = this.state.sessions.get(validationKey);
    return session && this.listed(session);
  }

  private listed(session: StoredSession): ListedSession {
    const record: SessionRecord = {
      validationKey: session.validationKey,
      merchantId: session.merchantId,
      status: session.status,
      detailedStatus: session.detailedStatus,
      errorMessage: session.errorMessage,
      paymentResponse: session.paymentResponse,
      returnUrl: session.returnUrl,
      errorUrl: session.errorUrl,
      version: session.version,
    };
    return {
      ...copy(record),
      createdAtMs: session.createdAtMs ?? null,
      createdBy: session.createdBy ? copy(session.createdBy) : null,
    };
  }

  private updateIfVersion(
    validationKey: string,
    expectedVersion: number,
    next: StoredReport & CallbackUrls,
  ): boolean {
    this.interfere();
    const current = this.state.sessions.get(validationKey);
    if (!current || current.version !== expectedVersion) return false;
    this.state.sessions.set(validationKey, {
      ...current,
      ...copy(next),
      version: expectedVersion + 1,
      ...(isFinal(next.status) ? { finalAt: Date.now() } : {}),
    });
    return true;
  }

  async dueForErasure(
    _tx: Tx,
    finalBefore: number,
    limit: number,
  ): Promise<Pick<SessionRecord, 'validationKey' | 'paymentResponse'>[]> {
    return [...this.state.sessions.values()]
      .filter(
        (s) =>
          s.finalAt != null && s.finalAt <= finalBefore && holdsPersonalData(s.paymentResponse),
      )
      .sort((a, b) => a.finalAt! - b.finalAt!)
      .slice(0, limit)
      .map(({ validationKey, paymentResponse }) => ({ validationKey, paymentResponse }));
  }

  async storeErasure(
    _tx: Tx,
    validationKey: string,
    paymentResponse: string | null,
    erasedAt: number | null,
  ): Promise<void> {
    const session = this.state.sessions.get(validationKey);
    if (!session) return;
    session.paymentResponse = paymentResponse;
    if (erasedAt !== null) session.personalDataErasedAt = erasedAt;
  }

  async setSeededTimes(_tx: Tx, times: SeededTimes[]): Promise<void> {
    for (const { validationKey, createdAt, finalAt } of times) {
      const session = this.state.sessions.get(validationKey)!;
      if (createdAt !== null) {
        session.createdAt = createdAt;
        session.createdAtMs = Date.parse(createdAt);
      }
      if (finalAt !== null) session.finalAt = finalAt;
    }
  }

  /** When a session was created, as a seed file gave it (undefined: the time it was stored). */
  createdAtOf(validationKey: string): string | undefined {
    return this.state.sessions.get(validationKey)?.createdAt;
  }

  /** When a session became final (epoch ms). */
  finalAtOf(validationKey: string): number | null | undefined {
    return this.state.sessions.get(validationKey)?.finalAt;
  }

  /** Moves the time a session became final, as if it had been final for longer. */
  setFinalAt(validationKey: string, finalAt: number): void {
    this.state.sessions.get(validationKey)!.finalAt = finalAt;
  }

  private addTransition(validationKey: string, transition: Omit<TransitionRecord, 'at'>): void {
    const list = this.state.transitions.get(validationKey) ?? [];
    if (list.some((t) => t.version === transition.version)) {
      throw new Error(`transition ${validationKey}@${transition.version} recorded twice`);
    }
    list.push({ ...transition, at: new Date() });
    this.state.transitions.set(validationKey, list);
  }

  async history(validationKey: string): Promise<TransitionRecord[]> {
    return copy(this.state.transitions.get(validationKey) ?? []);
  }

  async findManyIn(tx: Tx, validationKeys: string[]): Promise<Map<string, SessionRecord>> {
    const found = new Map<string, SessionRecord>();
    for (const key of validationKeys) {
      const session = await this.findIn(tx, key);
      if (session) found.set(key, session);
    }
    return found;
  }

  async insertMany(_tx: Tx, sessions: readonly NewSession[]): Promise<number> {
    return sessions.filter(({ session, createdBy }) => this.insert(session, createdBy)).length;
  }

  async updateManyIfVersion(_tx: Tx, updates: SessionUpdate[]): Promise<number> {
    return updates.filter((u) => this.updateIfVersion(u.validationKey, u.expectedVersion, u.next))
      .length;
  }

  async addTransitions(_tx: Tx, transitions: NewTransition[]): Promise<void> {
    for (const { validationKey, ...transition } of transitions) {
      this.addTransition(validationKey, transition);
    }
  }

  /** Writes made by "another process": committed, so no rollback of ours undoes them. */
  private foreignWrites: SessionRecord[] = [];

  /** Writes a session directly and commits it, as another process would. */
  put(session: SessionRecord): void {
    this.state.sessions.set(session.validationKey, copy(session));
    this.foreignWrites.push(copy(session));
  }

  stored(validationKey: string): SessionRecord | undefined {
    return this.state.sessions.get(validationKey);
  }

  snapshot(): unknown {
    this.foreignWrites = [];
    return copy(this.state);
  }

  restore(snapshot: unknown): void {
    this.state = copy(snapshot as State);
    for (const session of this.foreignWrites) {
      this.state.sessions.set(session.validationKey, copy(session));
    }
  }

  private interfere(): void {
    const hook = this.beforeNextWrite;
    this.beforeNextWrite = undefined;
    hook?.();
  }
}
