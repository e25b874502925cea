import { CALLBACK_RETRY_WINDOW_SECONDS } from '../config/app-config.js';
import type { AttemptResult, CallbackRecord } from './callback.repository.js';

/** Each delay of the schedule varies by up to this share either way. */
export const JITTER = 0.1;

/**
 * What an attempt makes of its callback. A 2xx delivers it. A failure waits for the next delay of
 * the schedule (±10 %), counted in failed attempts; after the last delay, or past 24 h from the
 * first attempt, the callback is failed. An attempt the operator asked for on a delivered or
 * failed callback that fails leaves it as it was.
 */
export function afterAttempt(
  callback: Pick<CallbackRecord, 'attempts' | 'firstAttemptAt' | 'stateAfterRedelivery'>,
  delivered: boolean,
  now: number,
  schedule: readonly number[],
  random: () => number = Math.random,
): AttemptResult {
  const base = {
    attempts: callback.attempts + 1,
    firstAttemptAt: callback.firstAttemptAt ?? now,
    nextAttemptAt: now,
    stateAfterRedelivery: null,
  };
  if (delivered) return { ...base, state: 'delivered' };
  if (callback.stateAfterRedelivery) return { ...base, state: callback.stateAfterRedelivery };
  const delaySeconds = schedule[callback.attempts];
  if (delaySeconds === undefined) return { ...base, state: 'failed' };
  const jittered = delaySeconds * 1000 * (1 - JITTER + 2 * JITTER * random());
  const next = Math.round(now + jittered);
  if (next > base.firstAttemptAt + CALLBACK_RETRY_WINDOW_SECONDS * 1000) {
    return { ...base, state: 'failed' };
  }
  return { ...base, state: 'pending', nextAttemptAt: next };
}
