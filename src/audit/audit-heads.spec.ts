import { Logger } from '@nestjs/common';
import { InMemoryTransactions } from '../../test/fakes/in-memory-transactions.js';
import { AuditHeads, HEAD_PUBLISH_INTERVAL_MS } from './audit-heads.js';
import type { AuditRepository } from './audit.repository.js';
import type { MetricsService } from '../metrics/metrics.service.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A chain whose head grows by one at every read, each read taking the next of `readMs` (the last
 * one repeated): a slow read followed by fast ones is what moved lines closer than a second.
 */
function chain(readMs: number[]) {
  let seq = 0;
  let reads = 0;
  const events = {
    last: async () => {
      await sleep(readMs[Math.min(reads++, readMs.length - 1)]);
      seq++;
      return { seq, hash: seq.toString(16).padStart(64, '0'), at: new Date().toISOString() };
    },
  } as unknown as AuditRepository;
  const published: number[] = [];
  const metrics = { setAuditHead: () => published.push(Date.now()) } as unknown as MetricsService;
  const heads = new AuditHeads(events, new InMemoryTransactions(), metrics);
  return { heads, published };
}

describe('AuditHeads', () => {
  // Its lines go to Nest's logger; what is published is read from the metric here.
  beforeAll(() => Logger.overrideLogger(false));

  it('publishes a second apart or more, however long each read of the head takes', async () => {
    const { heads, published } = chain([300, 5]);
    heads.start();
    // Appends during the slow first read, then during the waits that follow.
    await sleep(50);
    heads.appended(100);
    await sleep(1400);
    heads.appended(101);
    await sleep(1400);
    await heads.beforeApplicationShutdown();
    expect(published.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < published.length - 1; i++) {
      // A timer may fire a millisecond early; the last line is the shutdown's, which comes at once.
      expect(published[i] - published[i - 1]).toBeGreaterThanOrEqual(HEAD_PUBLISH_INTERVAL_MS - 2);
    }
  }, 10_000);
});
