import { jest } from '@jest/globals';
import { FixedWindowStorage } from './fixed-window-storage.js';

describe('FixedWindowStorage', () => {
  let storage: FixedWindowStorage;
  let now: number;

  beforeEach(() => {
    now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    storage = new FixedWindowStorage();
  });
  afterEach(() => {
    storage.onApplicationShutdown();
    jest.restoreAllMocks();
  });

  it('counts hits up to the limit, then blocks for the block duration', async () => {
    for (let hit = 1; hit <= 3; hit++) {
      const record = await storage.increment('k', 60_000, 3, 30_000, 'default');
      expect(record).toEqual({
        totalHits: hit,
        timeToExpire: 60,
        isBlocked: false,
        timeToBlockExpire: 0,
      });
    }
    const over = await storage.increment('k', 60_000, 3, 30_000, 'default');
    expect(over.isBlocked).toBe(true);
    expect(over.timeToBlockExpire).toBe(30);
    expect(await storage.blockedFor('k', 'default')).toBe(30);
    now += 10_000;
    expect((await storage.increment('k', 60_000, 3, 30_000, 'default')).isBlocked).toBe(true);
    expect(await storage.blockedFor('k', 'default')).toBe(20);
  });

  it('counts in memory at once: incrementNow and increment share the counter', async () => {
    expect(storage.incrementNow('k', 60_000, 2, 30_000, 'default')).toMatchObject({ totalHits: 1 });
    expect(await storage.increment('k', 60_000, 2, 30_000, 'default')).toMatchObject({
      totalHits: 2,
    });
    expect(storage.incrementNow('k', 60_000, 2, 30_000, 'default').isBlocked).toBe(true);
  });

  it('starts a new window when the old one and its block have ended', async () => {
    for (let hit = 0; hit < 5; hit++) await storage.increment('k', 60_000, 3, 60_000, 'default');
    now += 60_001;
    const record = await storage.increment('k', 60_000, 3, 60_000, 'default');
    expect(record).toEqual({
      totalHits: 1,
      timeToExpire: 60,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
    expect(await storage.blockedFor('k', 'default')).toBe(0);
  });

  it('keeps keys and throttler names apart', async () => {
    for (let hit = 0; hit < 4; hit++) await storage.increment('a', 60_000, 3, 60_000, 'default');
    expect((await storage.increment('b', 60_000, 3, 60_000, 'default')).isBlocked).toBe(false);
    expect((await storage.increment('a', 60_000, 3, 60_000, 'other')).isBlocked).toBe(false);
    expect(await storage.blockedFor('a', 'default')).toBe(60);
    expect(await storage.blockedFor('a', 'other')).toBe(0);
  });
});
