import { Injectable } from '@nestjs/common';
import { CheckoutService } from '../checkout/checkout.service.js';
import { ApiError } from '../common/errors/api-error.js';
import { shownCallbackUrl } from '../callbacks/callback-outbox.js';
import { moneyView } from '../common/money.js';
import type { Listing } from '../common/http/envelope.js';
import { ROLES_INCLUDING } from '../access/operator-role.js';
import type { OperatorIdentity } from '../access/operator-call.js';
import type { ListedSession } from '../payment-status/payment-session.repository.js';
import { PaymentSessionService } from '../payment-status/payment-session.service.js';
import { PERSONAL_FIELDS } from '../payment-status/payment-response.fields.js';
import { buildStatusElement } from '../payment-status/payment-status.shapes.js';
import { isValidationKey } from '../payment-status/payment-status.types.js';
import {
  SessionDetailDto,
  SessionListQueryDto,
  SessionSummaryDto,
} from './dto/admin-sessions.dto.js';

const DEFAULT_PAGE_SIZE = 20;

/**
 * Payment sessions as operators see them: a list, newest first with cursor pages, and one
 * session with its status element, amounts, references, creator, callback URLs and checkout.
 * The customer's personal data only for operators whose role includes `payments`.
 */
@Injectable()
export class PaymentSessionViews {
  constructor(
    private readonly sessions: PaymentSessionService,
    private readonly checkouts: CheckoutService,
  ) {}

  async list(
    query: SessionListQueryDto,
  ): Promise<Listing<SessionSummaryDto, { nextCursor?: string }>> {
    const size = query.size ?? DEFAULT_PAGE_SIZE;
    const rows = await this.sessions.list({
      merchantId: query.merchantId,
      status: query.status,
      createdFrom: query.createdFrom === undefined ? undefined : Date.parse(query.createdFrom),
      createdTo: query.createdTo === undefined ? undefined : Date.parse(query.createdTo),
      after: query.cursor === undefined ? undefined : cursorOf(query.cursor),
      limit: size + 1,
    });
    const page = rows.slice(0, size);
    const last = page[page.length - 1];
    return {
      ...(rows.length > size && last ? { nextCursor: cursorFor(last) } : {}),
      items: page.map(summaryOf),
    };
  }

  async detail(validationKey: string, operator: OperatorIdentity): Promise<SessionDetailDto> {
    const session = await this.sessions.findListed(validationKey);
    if (!session) {
      throw new ApiError('NOT_FOUND', {
        message: 'Payment session not found.',
        field: 'validationKey',
      });
    }
    const personal =
      operator.role !== undefined && ROLES_INCLUDING.payments.includes(operator.role);
    // A callback URL's query may carry a merchant's token: whole only for those who see personal data.
    const shown = (url: string | null) =>
      url === null ? undefined : personal ? url : shownCallbackUrl(url);
    const checkout = await this.checkouts.detailOf(validationKey);
    const element = buildStatusElement(validationKey, session) as unknown as Record<
      string,
      unknown
    >;
    const response = element.paymentResponse as Record<string, unknown> | undefined;
    if (response && !personal) for (const field of PERSONAL_FIELDS) delete response[field];
    const request = checkout?.request;
    const money = request ? moneyView(request.money) : response?.money;
    return {
      ...summaryOf(session),
      version: session.version,
      ...(money ? { money: money as SessionDetailDto['money'] } : {}),
      ...optional('traceId', request?.traceId ?? (response?.traceId as string | undefined)),
      ...optional(
        'clientReference',
        request?.clientReference ?? (response?.clientReference as string | undefined),
      ),
      ...optional(
        'description',
        request?.description ?? (response?.description as string | undefined),
      ),
      ...optional('returnUrl', shown(session.returnUrl)),
      ...optional('errorUrl', shown(session.errorUrl)),
      ...(checkout && request
        ? {
            checkout: {
              expiresAt: new Date(checkout.expiresAt).toISOString(),
              ...optional('chosenPair', checkout.chosenPair ?? undefined),
              ...optional('languagePreference', request.languagePreference ?? undefined),
              ...(personal && request.destinationAccountNumber !== null
                ? { destinationAccountNumber: request.destinationAccountNumber }
                : {}),
              brandId: request.brandId,
              ...(personal && request.client ? { client: { ...request.client } } : {}),
              ...(personal && request.address ? { address: { ...request.address } } : {}),
            },
          }
        : {}),
      payload: [element],
    };
  }
}

function optional<K extends string>(
  name: K,
  value: string | undefined,
): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [name]: value } as Record<K, string>);
}

function summaryOf(session: ListedSession): SessionSummaryDto {
  return {
    validationKey: session.validationKey,
    merchantId: session.merchantId,
    status: session.status,
    ...optional('detailedStatus', session.detailedStatus ?? undefined),
    ...(session.createdAtMs === null
      ? {}
      : { createdAt: new Date(session.createdAtMs).toISOString() }),
    ...(session.createdBy ? { createdBy: { ...session.createdBy } } : {}),
  };
}

function cursorFor(session: ListedSession): string {
  return Buffer.from(JSON.stringify([session.createdAtMs ?? 0, session.validationKey])).toString(
    'base64url',
  );
}

/** The latest time a Date holds (epoch ms): a session's creation time is never past it. */
const LATEST_TIME_MS = 8.64e15;

/**
 * The session a cursor names, only as cursorFor writes it: a creation time in whole
 * milliseconds a Date holds, and a validation key. Anything else (a fraction, a number past the
 * range, text that is not a validation key) is the same 400 as a cursor that is not JSON, on
 * every database, before any query is built from it.
 */
function cursorOf(cursor: string): { createdAtMs: number; validationKey: string } {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  if (Array.isArray(decoded) && decoded.length === 2) {
    const [createdAtMs, validationKey] = decoded as unknown[];
    if (
      Number.isSafeInteger(createdAtMs) &&
      (createdAtMs as number) >= 0 &&
      (createdAtMs as number) <= LATEST_TIME_MS &&
      isValidationKey(validationKey)
    ) {
      return { createdAtMs: createdAtMs as number, validationKey };
    }
  }
  throw ApiError.invalidParameters([
    { field: 'cursor', message: 'must be the nextCursor of an earlier page' },
  ]);
}
