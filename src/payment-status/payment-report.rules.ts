import { ApiError } from '../common/errors/api-error.js';
import type { FieldError } from '../common/validation.js';
import type { PaymentReportDto } from './dto/payment-report.dto.js';
import type { CallbackUrls, SessionRecord } from './payment-session.repository.js';
import { SUCCESSFUL_REQUIRED_FIELDS } from './payment-response.fields.js';
import { StoredReport, toStoredPaymentResponse } from './payment-status.shapes.js';
import { isFinal } from './payment-status.types.js';
import { withoutPersonalFields } from './personal-data.js';

/**
 * The rules that tie fields to the status, checked after the per-field rules.
 * Returns one error per offending field, named by its dotted path.
 */
export function statusFieldErrors(validationKey: string, report: PaymentReportDto): FieldError[] {
  const errors: FieldError[] = [];
  const { status, paymentResponse } = report;
  if (status === 'SUCCESSFUL') {
    if (paymentResponse === undefined) {
      errors.push({ field: 'paymentResponse', message: 'is required when status is SUCCESSFUL' });
    } else {
      for (const field of SUCCESSFUL_REQUIRED_FIELDS) {
        if (paymentResponse[field] === undefined) {
          errors.push({
            field: `paymentResponse.${field}`,
            message: 'is required when status is SUCCESSFUL',
          });
        }
      }
      if (
        paymentResponse.validationKey !== undefined &&
        paymentResponse.validationKey !== validationKey
      ) {
        errors.push({
          field: 'paymentResponse.validationKey',
          message: "must be the session's own validationKey when given",
        });
      }
    }
  } else if (paymentResponse !== undefined) {
    errors.push({ field: 'paymentResponse', message: 'is only allowed when status is SUCCESSFUL' });
  }
  if (status === 'FAILED' && report.errorMessage === undefined) {
    errors.push({ field: 'errorMessage', message: 'is required when status is FAILED' });
  }
  if (status !== 'FAILED' && report.errorMessage !== undefined) {
    errors.push({ field: 'errorMessage', message: 'is only allowed when status is FAILED' });
  }
  if (report.detailedStatus !== undefined && status !== 'NOT_COMPLETED' && status !== 'FAILED') {
    errors.push({
      field: 'detailedStatus',
      message: 'is only allowed when status is NOT_COMPLETED or FAILED',
    });
  }
  return errors;
}

/** The times a seed file may give a session moved from another system (ISO date-times). */
export interface SessionTimes {
  createdAt?: string;
  finalAt?: string;
}

/**
 * The rules of a seeded session's times: `finalAt` only for a final status, neither in the
 * future, and not final before it was created.
 */
export function seededTimeErrors(
  status: string,
  times: SessionTimes,
  now = Date.now(),
): FieldError[] {
  const errors: FieldError[] = [];
  const created = times.createdAt === undefined ? undefined : Date.parse(times.createdAt);
  const final = times.finalAt === undefined ? undefined : Date.parse(times.finalAt);
  if (final !== undefined && status !== 'SUCCESSFUL' && status !== 'FAILED') {
    errors.push({
      field: 'finalAt',
      message: 'is only allowed when status is SUCCESSFUL or FAILED',
    });
  }
  for (const [field, time] of [
    ['createdAt', created],
    ['finalAt', final],
  ] as const) {
    if (time !== undefined && time > now)
      errors.push({ field, message: 'must not be in the future' });
  }
  if (created !== undefined && final !== undefined && final < created) {
    errors.push({ field: 'finalAt', message: 'must not be before createdAt' });
  }
  return errors;
}

/** The stored form of a valid report; two reports are the same when their stored forms are. */
export function toStoredReport(report: PaymentReportDto): StoredReport {
  return {
    status: report.status,
    detailedStatus: report.detailedStatus ?? null,
    errorMessage: report.errorMessage ?? null,
    paymentResponse: report.paymentResponse
      ? JSON.stringify(toStoredPaymentResponse(report.paymentResponse))
      : null,
  };
}

export function sameReport(a: StoredReport, b: StoredReport): boolean {
  return (
    a.status === b.status &&
    a.detailedStatus === b.detailedStatus &&
    a.errorMessage === b.errorMessage &&
    a.paymentResponse === b.paymentResponse
  );
}

/** What a valid report does to its session (`previous`: as stored, null for a new one). */
export type SessionChange =
  | { outcome: 'created'; session: SessionRecord; previous: null; transitioned: true }
  | {
      outcome: 'updated';
      session: SessionRecord;
      previous: SessionRecord;
      /** What the update stores. */
      stored: StoredReport & CallbackUrls;
      /** False when only the callback URLs changed: not a transition. */
      transitioned: boolean;
    }
  | { outcome: 'unchanged'; session: SessionRecord; previous: SessionRecord; transitioned: false };

/**
 * The state machine: NOT_COMPLETED and PENDING may move to any status; SUCCESSFUL and FAILED are
 * final, where the identical report again changes nothing (also after an erasure: compared
 * without the erased fields) and anything else is a CONFLICT. URLs
 * are kept once given: a report without them leaves the stored ones as they are. `next` is
 * toStoredReport(report); the merchant of a new session is checked by the caller.
 */
export function sessionChange(
  validationKey: string,
  report: PaymentReportDto,
  next: StoredReport,
  current: SessionRecord | undefined,
): SessionChange {
  const urls: CallbackUrls = {
    returnUrl: report.returnUrl ?? current?.returnUrl ?? null,
    errorUrl: report.errorUrl ?? current?.errorUrl ?? null,
  };
  if (!current) {
    const session = {
      validationKey,
      merchantId: report.merchantId,
      ...next,
      ...urls,
      version: 1,
    };
    return { outcome: 'created', session, previous: null, transitioned: true };
  }
  if (current.merchantId !== report.merchantId) {
    throw new ApiError('CONFLICT', {
      message: 'This payment session belongs to another merchant.',
      field: 'merchantId',
    });
  }
  const sameUrls = urls.returnUrl === current.returnUrl && urls.errorUrl === current.errorUrl;
  // Once its personal data is erased, the session holds what was reported without it: a report
  // is the same when it is the same but for those fields (they are gone, and stay gone).
  const reported = current.personalDataErasedAt == null ? next : withoutPersonalFields(next);
  if (sameReport(current, reported) && sameUrls) {
    return { outcome: 'unchanged', session: current, previous: current, transitioned: false };
  }
  if (isFinal(current.status)) {
    throw new ApiError('CONFLICT', {
      message: `The payment session is ${current.status}, a final state; it cannot change.`,
      field: sameReport(current, reported)
        ? urls.returnUrl !== current.returnUrl
          ? 'returnUrl'
          : 'errorUrl'
        : 'status',
    });
  }
  const stored = { ...next, ...urls };
  return {
    outcome: 'updated',
    session: { ...current, ...stored, version: current.version + 1 },
    previous: current,
    stored,
    // Only a change of what the merchant sees is a transition; new URLs alone are not.
    transitioned: !sameReport(current, next),
  };
}
