/** How many callback attempts an instance makes at once, and for whom. */
export interface DeliveryLimits {
  /** Attempts at once for merchants whose receivers answer in time. */
  inFlight: number;
  /** Attempts at once for one merchant. */
  perMerchant: number;
  /** Attempts at once, in all, of merchants whose receiver is slow (and attempts that became slow). */
  slowInFlight: number;
  /** Attempts at once, whatever they are: the sockets an instance holds open at most. */
  total: number;
  /** An attempt running longer than this is slow: it leaves its place among the fast ones. */
  slowAfterMs: number;
  /** A merchant stays slow this long after its last slow attempt, unless one ends in time. */
  slowForMs: number;
  /** Slow merchants remembered at most (the oldest forgotten first). */
  slowMerchants: number;
}

/**
 * The dispatcher's limits. A receiver that accepts and never answers holds an attempt until its
 * time limit (CALLBACK_TIMEOUT_MS, 10 s by default): after a second it stops counting among the
 * 64 attempts of merchants that answer, and its merchant's further attempts share 32 places with
 * the other slow merchants' — so merchants that answer always find room, whatever the slow ones
 * send. 512 at once in all bounds the open sockets.
 */
export const DELIVERY_LIMITS: DeliveryLimits = {
  inFlight: 64,
  perMerchant: 8,
  slowInFlight: 32,
  total: 512,
  slowAfterMs: 1000,
  slowForMs: 10 * 60_000,
  slowMerchants: 1000,
};

/** A callback due, as the claim offers it before leasing it. */
export interface DueCallback {
  id: string;
  merchantId: string;
}

/** What the next claim may take: how many at most, whose not at all, and which of those offered. */
export interface ClaimPlan {
  limit: number;
  /** Merchants none of whose callbacks may be claimed now (at their limit, or slow with no room). */
  exclude: string[];
  /** The ids to lease among those offered (in the order offered), within every limit. */
  pick(offered: readonly DueCallback[]): string[];
}

interface Attempt {
  merchantId: string;
  startedAt: number;
  /** Its merchant was slow when it started, or it has run past slowAfterMs. */
  slow: boolean;
}

/**
 * Fair shares of the callback attempts an instance makes at once: no merchant more than
 * `perMerchant`, and merchants whose receivers are slow (an attempt past `slowAfterMs`, or one
 * that ran out of time) only within `slowInFlight` together, so that one merchant's hanging
 * receiver — or a hundred merchants' — slows their own callbacks, never the others'.
 */
export class DeliveryLanes {
  private readonly attempts = new Map<string, Attempt>();
  /** Slow merchants, each until when; in the order they were marked. */
  private readonly slow = new Map<string, number>();

  constructor(private readonly limits: DeliveryLimits = DELIVERY_LIMITS) {}

  get size(): number {
    return this.attempts.size;
  }

  started(id: string, merchantId: string, now: number): void {
    this.attempts.set(id, { merchantId, startedAt: now, slow: this.isSlow(merchantId, now) });
  }

  /** The attempt ended; `durationMs` and whether it ran out of time tell if its receiver is slow. */
  ended(id: string, outcome: { durationMs: number; timedOut: boolean }, now: number): void {
    const attempt = this.attempts.get(id);
    this.attempts.delete(id);
    if (!attempt) return;
    if (outcome.timedOut || outcome.durationMs > this.limits.slowAfterMs) {
      this.markSlow(attempt.merchantId, now);
    } else {
      this.slow.delete(attempt.merchantId);
    }
  }

  plan(now: number): ClaimPlan {
    let fast = 0;
    let slow = 0;
    const perMerchant = new Map<string, number>();
    for (const attempt of this.attempts.values()) {
      if (!attempt.slow && now - attempt.startedAt > this.limits.slowAfterMs) {
        attempt.slow = true;
        this.markSlow(attempt.merchantId, now);
      }
      if (attempt.slow) slow++;
      else fast++;
      perMerchant.set(attempt.merchantId, (perMerchant.get(attempt.merchantId) ?? 0) + 1);
    }
    for (const [merchantId, until] of this.slow) if (until <= now) this.slow.delete(merchantId);
    const fastRoom = Math.max(0, this.limits.inFlight - fast);
    const slowRoom = Math.max(0, this.limits.slowInFlight - slow);
    const limit = Math.min(this.limits.total - this.attempts.size, fastRoom + slowRoom);
    const exclude = new Set<string>();
    for (const [merchantId, count] of perMerchant) {
      if (count >= this.limits.perMerchant) exclude.add(merchantId);
    }
    if (slowRoom === 0) for (const merchantId of this.slow.keys()) exclude.add(merchantId);
    return {
      limit: Math.max(0, limit),
      exclude: [...exclude],
      // The same answer however often it is asked (a claim's transaction may be run again).
      pick: (offered) => {
        const picked: string[] = [];
        const counts = new Map(perMerchant);
        let fastLeft = fastRoom;
        let slowLeft = slowRoom;
        for (const { id, merchantId } of offered) {
          if (picked.length >= limit) break;
          const count = counts.get(merchantId) ?? 0;
          if (count >= this.limits.perMerchant) continue;
          if (this.slow.has(merchantId)) {
            if (slowLeft === 0) continue;
            slowLeft--;
          } else {
            if (fastLeft === 0) continue;
            fastLeft--;
          }
          counts.set(merchantId, count + 1);
          picked.push(id);
        }
        return picked;
      },
    };
  }

  private isSlow(merchantId: string, now: number): boolean {
    const until = this.slow.get(merchantId);
    return until !== undefined && until > now;
  }

  private markSlow(merchantId: string, now: number): void {
    this.slow.delete(merchantId);
    this.slow.set(merchantId, now + this.limits.slowForMs);
    if (this.slow.size > this.limits.slowMerchants) {
      this.slow.delete(this.slow.keys().next().value as string);
    }
  }
}
