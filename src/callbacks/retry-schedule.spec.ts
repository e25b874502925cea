import { DEFAULT_CALLBACK_RETRY_SCHEDULE } from '../config/app-config.js';
import { afterAttempt } from './retry-schedule.js';

const NOW = 1_800_000_000_000;
const fresh = { attempts: 0, firstAttemptAt: null, stateAfterRedelivery: null };
const middle = () => 0.5;

describe('afterAttempt', () => {
  it('delivers on success and keeps when the first attempt was', () => {
    expect(afterAttempt(fresh, true, NOW, [1])).toEqual({
      state: 'delivered',
      attempts: 1,
      firstAttemptAt: NOW,
      nextAttemptAt: NOW,
      stateAfterRedelivery: null,
    });
  });

  it('waits the next delay of the schedule after each failure', () => {
    let callback: { attempts: number; firstAttemptAt: number | null; stateAfterRedelivery: null } =
      fresh;
    let now = NOW;
    for (const delay of [5, 30, 120, 600, 1800, 3600, 7200]) {
      const next = afterAttempt(callback, false, now, DEFAULT_CALLBACK_RETRY_SCHEDULE, middle);
      expect(next.state).toBe('pending');
      expect(next.nextAttemptAt - now).toBe(delay * 1000);
      expect(next.firstAttemptAt).toBe(NOW);
      callback = {
        attempts: next.attempts,
        firstAttemptAt: next.firstAttemptAt,
        stateAfterRedelivery: null,
      };
      now = next.nextAttemptAt;
    }
  });

  it.each([0, 0.999999])('varies each delay by at most 10 %% (random %p)', (random) => {
    const next = afterAttempt(fresh, false, NOW, [100], () => random);
    expect(Math.abs(next.nextAttemptAt - NOW - 100_000)).toBeLessThanOrEqual(10_000);
  });

  it('fails the callback after the last delay of the schedule', () => {
    const last = afterAttempt(
      { attempts: 2, firstAttemptAt: NOW - 5000, stateAfterRedelivery: null },
      false,
      NOW,
      [1, 1],
      middle,
    );
    expect(last.state).toBe('failed');
    expect(last.attempts).toBe(3);
  });

  it('fails the callback rather than retry later than 24 h after its first attempt', () => {
    const late = afterAttempt(
      { attempts: 1, firstAttemptAt: NOW - 23.9 * 3600 * 1000, stateAfterRedelivery: null },
      false,
      NOW,
      [7200, 7200],
      middle,
    );
    expect(late.state).toBe('failed');
  });

  it('retries for 24 h with the default schedule: 18 attempts in all', () => {
    let callback: { attempts: number; firstAttemptAt: number | null; stateAfterRedelivery: null } =
      fresh;
    let now = NOW;
    let state = 'pending';
    while (state === 'pending') {
      const next = afterAttempt(callback, false, now, DEFAULT_CALLBACK_RETRY_SCHEDULE, middle);
      callback = {
        attempts: next.attempts,
        firstAttemptAt: next.firstAttemptAt,
        stateAfterRedelivery: null,
      };
      state = next.state;
      now = next.nextAttemptAt;
    }
    expect(state).toBe('failed');
    expect(callback.attempts).toBe(18);
    expect(now - NOW).toBeLessThanOrEqual(24 * 3600 * 1000);
  });

  it.each(['delivered', 'failed'] as const)(
    'returns a redelivered %s callback to its state when that attempt fails',
    (state) => {
      const next = afterAttempt(
        { attempts: 4, firstAttemptAt: NOW, stateAfterRedelivery: state },
        false,
        NOW,
        [1],
        middle,
      );
      expect(next.state).toBe(state);
      expect(next.stateAfterRedelivery).toBeNull();
      expect(
        afterAttempt(
          { attempts: 4, firstAttemptAt: NOW, stateAfterRedelivery: state },
          true,
          NOW,
          [1],
        ).state,
      ).toBe('delivered');
    },
  );
});
