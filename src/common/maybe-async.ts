/**
 * A value now or later: what a step returns when it can usually answer at once (a key or a
 * counter in memory) and sometimes has to wait (the database, Redis). Answering at once saves
 * the promise and the turn of the microtask queue that each `await` costs on every request.
 */
export type MaybePromise<T> = T | Promise<T>;

/** Runs `next` on the value: at once when there is one, else when the promise settles. */
export function andThen<T, U>(
  value: MaybePromise<T>,
  next: (value: T) => MaybePromise<U>,
): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
