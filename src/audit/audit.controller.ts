import { Controller } from '@nestjs/common';
import { ValidQuery } from '../common/validation.js';
import { ApiTags } from '@nestjs/swagger';
import type { Listing } from '../common/http/envelope.js';
import { listingPage } from '../common/http/envelope.js';
import { Endpoint } from '../http/endpoint.decorator.js';
import type { RefusalReason } from '../access/access-ports.js';
import type { StoredAuditEvent } from './audit-chain.js';
import { AuditTrail } from './audit-trail.service.js';
import { AuditHeads } from './audit-heads.js';
import {
  AuditEventDto,
  AuditEventPageDto,
  AuditHeadDto,
  AuditQueryDto,
  ChainVerificationDto,
  VerifyQueryDto,
  auditTimeBound,
} from './dto/audit.dto.js';

@ApiTags('Operator: audit trail')
@Controller()
export class AuditController {
  constructor(
    private readonly trail: AuditTrail,
    private readonly heads: AuditHeads,
  ) {}

  @Endpoint({
    method: 'GET',
    path: 'admin/audit-events',
    operationId: 'listAuditEvents',
    summary: 'The audit trail, newest first',
    description:
      'One event per operator request that changed something, and per refused operator request ' +
      '(401, 403, 429). Filters combine; `from` and `to` are inclusive.',
    access: 'operator',
    role: 'admin',
    envelope: { kind: 'list' },
    responses: [{ status: 200, type: AuditEventPageDto }],
    errors: ['INVALID_PARAMETER'],
  })
  async list(@ValidQuery() query: AuditQueryDto): Promise<Listing<AuditEventDto>> {
    const { operator, action, target, from, to } = query;
    const { rows, total } = await this.trail.list(
      {
        operator,
        action,
        target,
        from: from === undefined ? undefined : auditTimeBound(from, 'from'),
        to: to === undefined ? undefined : auditTimeBound(to, 'to'),
      },
      query,
    );
    return listingPage(rows.map(toView), query, total);
  }

  @Endpoint({
    method: 'GET',
    path: 'admin/audit-events/head',
    operationId: 'getAuditHead',
    summary: 'The head of the audit chain, to keep outside the database',
    description:
      'How many events the chain holds, the link of the last one and its time. Keep `events` and ' +
      '`headHash` where a writer of the database cannot reach them; `verify?head=&events=` later ' +
      'proves that the chain still holds them. The same head goes to the log and `/metrics` ' +
      '(which a viewer reads too) whenever it changes.',
    access: 'operator',
    role: 'viewer',
    responses: [{ status: 200, type: AuditHeadDto }],
  })
  head(): Promise<AuditHeadDto> {
    return this.heads.head();
  }

  @Endpoint({
    method: 'GET',
    path: 'admin/audit-events/verify',
    operationId: 'verifyAuditTrail',
    summary: 'Recompute the keyed chain and name its first broken link',
    description:
      "Every event's link is the HMAC-SHA256, under the audit key, of its content and the " +
      'previous link: an event altered, removed, inserted or re-linked without the key breaks the ' +
      'chain there. With `head` and `events` (a head kept earlier), it also proves that the chain ' +
      'still holds that head, so that events removed from the end, or rewritten up to it even ' +
      'with the key, are found.',
    access: 'operator',
    role: 'viewer',
    responses: [{ status: 200, type: ChainVerificationDto }],
    errors: ['INVALID_PARAMETER'],
  })
  async verify(@ValidQuery() query: VerifyQueryDto): Promise<ChainVerificationDto> {
    const { head, events } = query;
    const kept =
      head === undefined || events === undefined ? undefined : { headHash: head, events };
    const { brokenAt, ...result } = await this.trail.verify(kept);
    return brokenAt
      ? { ...result, brokenAt: { id: brokenAt.seq, reason: brokenAt.reason } }
      : result;
  }
}

function toView(event: StoredAuditEvent): AuditEventDto {
  return {
    id: event.seq,
    at: event.at,
    operator: { kind: event.actorKind, id: event.operatorId, name: event.operatorName },
    action: event.action,
    target: event.target,
    outcome: event.outcome,
    requestId: event.requestId,
    changes: event.changes,
    ...(event.reason === null ? {} : { reason: event.reason as RefusalReason }),
    keyId: event.keyId,
    prevHash: event.prevHash,
    hash: event.hash,
  };
}
