import { ApiError } from '../../src/common/errors/api-error.js';

/** The error a promise rejects with; fails the test when it resolves or rejects otherwise. */
export async function apiErrorOf(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}
