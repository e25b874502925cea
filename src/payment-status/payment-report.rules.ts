import type { FieldError } from '../common/validation.js';
import type { PaymentReportDto } from './dto/payment-report.dto.js';
import { SUCCESSFUL_REQUIRED_FIELDS } from './payment-response.fields.js';
import { StoredReport, toStoredPaymentResponse } from './payment-status.shapes.js';

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
