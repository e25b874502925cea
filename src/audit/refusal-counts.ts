/** The limits of refusals recorded one by one; past them, refusals are counted. */
export interface RefusalCountLimits {
  /** Length of a counting window (fixed windows, aligned on the clock). */
  windowMs: number;
  /** Refusals of one address recorded as events of their own in a window. */
  perAddress: number;
  /** Refusals of all addresses recorded as events of their own in a window. */
  inAll: number;
  /** Addresses counted on their own in a window; refusals of others share one count. */
  addresses: number;
}

/** One event a minute per address at most, ten events of its own before that, a bounded map. */
export const REFUSAL_COUNT_LIMITS: RefusalCountLimits = {
  windowMs: 60_000,
  perAddress: 10,
  inAll: 100,
  addresses: 1_000,
};

/** What the addresses past the `addresses` limit are counted under. */
export const OTHER_ADDRESSES = 'other addresses';

/** The refusals of one address in one window that were counted, not recorded one by one. */
export interface CountedRefusals {
  /** The caller's address (`ip:<address>`), or OTHER_ADDRESSES. */
  address: string;
  /** The window: its start and end, epoch milliseconds. */
  from: number;
  to: number;
  count: number;
  /** How many of each HTTP status (401, 403, 429). */
  byOutcome: Record<string, number>;
  /** How many of each reason (missing_token, unknown_token, revoked, insufficient_role). */
  byReason: Record<string, number>;
}

interface AddressWindow {
  recorded: number;
  counted?: CountedRefusals;
}

/**
 * Decides, for each refused operator request, whether it becomes an audit event of its own or is
 * counted: the first refusals of an address in a window are recorded one by one (a mistyped
 * token, a revoked one tried again), the rest only counted, and each window's counts become one
 * event per address when it ends. However many requests a client sends, it adds at most
 * `perAddress` + 1 events a window, and all clients together at most `inAll` + `addresses` + 1
 * per instance. In memory, for the current window only.
 */
export class RefusalCounts {
  private window = -1;
  private addresses = new Map<string, AddressWindow>();
  private recordedInAll = 0;
  private ended: CountedRefusals[] = [];

  constructor(private readonly limits: RefusalCountLimits = REFUSAL_COUNT_LIMITS) {}

  /** True when this refusal is to be recorded as an event of its own; else it was counted. */
  take(address: string, outcome: number, reason: string, at: number): boolean {
    this.moveTo(Math.floor(at / this.limits.windowMs));
    let entry = this.addresses.get(address);
    if (!entry && this.addresses.size >= this.limits.addresses) {
      address = OTHER_ADDRESSES;
      entry = this.addresses.get(address);
    }
    if (!entry) this.addresses.set(address, (entry = { recorded: 0 }));
    if (
      address !== OTHER_ADDRESSES &&
      entry.recorded < this.limits.perAddress &&
      this.recordedInAll < this.limits.inAll
    ) {
      entry.recorded++;
      this.recordedInAll++;
      return true;
    }
    const from = this.window * this.limits.windowMs;
    const counted = (entry.counted ??= {
      address,
      from,
      to: from + this.limits.windowMs,
      count: 0,
      byOutcome: {},
      byReason: {},
    });
    counted.count++;
    counted.byOutcome[outcome] = (counted.byOutcome[outcome] ?? 0) + 1;
    counted.byReason[reason] = (counted.byReason[reason] ?? 0) + 1;
    return false;
  }

  /** When the window counting now ends, if it counted anything. */
  get pendingUntil(): number | undefined {
    if (this.ended.length > 0) return (this.window + 1) * this.limits.windowMs;
    for (const entry of this.addresses.values()) {
      if (entry.counted) return (this.window + 1) * this.limits.windowMs;
    }
    return undefined;
  }

  /**
   * The counts of the windows that have ended by `at`, taken out; with `all`, the current
   * window's too (when the process stops).
   */
  takeEnded(at: number, all = false): CountedRefusals[] {
    this.moveTo(Math.floor(at / this.limits.windowMs));
    if (all) this.endWindow();
    const ended = this.ended;
    this.ended = [];
    return ended;
  }

  private moveTo(window: number): void {
    if (window === this.window) return;
    this.endWindow();
    this.window = window;
  }

  private endWindow(): void {
    for (const entry of this.addresses.values()) if (entry.counted) this.ended.push(entry.counted);
    this.addresses = new Map();
    this.recordedInAll = 0;
  }
}
