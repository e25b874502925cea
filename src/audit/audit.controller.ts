import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Listing } from '../common/http/envelope.js';
import { listingPage } from '../common/http/envelope.js';
import { Endpoint } from '../http/endpoint.decorator.js';
import type { AuditEvent } from './audit-chain.js';
import { AuditTrail } from './audit-trail.service.js';
import {
  AuditEventDto,
  AuditEventPageDto,
  AuditQueryDto,
  ChainVerificationDto,
} from './dto/audit.dto.js';

@ApiTags('Operator: audit trail')
@Controller('admin/audit-events')
export class AuditController {
  constructor(private readonly trail: AuditTrail) {}

  @Get()
  @Endpoint({
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
  async list(@Query() query: AuditQueryDto): Promise<Listing<AuditEventDto>> {
    const { operator, action, target, from, to } = query;
    const { rows, total } = await this.trail.list(
      { operator, action, target, from: iso(from), to: iso(to) },
      query,
    );
    return listingPage(rows.map(toView), query, total);
  }

  @Get('verify')
  @Endpoint({
    operationId: 'verifyAuditTrail',
    summary: 'Recompute the hash chain and name its first broken link',
    description:
      "Every event carries the SHA-256 of its content and of the previous event's hash. An event " +
      'altered, removed or inserted breaks the chain at that point.',
    access: 'operator',
    role: 'admin',
    responses: [{ status: 200, type: ChainVerificationDto }],
  })
  async verify(): Promise<ChainVerificationDto> {
    const { brokenAt, ...result } = await this.trail.verify();
    return brokenAt
      ? { ...result, brokenAt: { id: brokenAt.seq, reason: brokenAt.reason } }
      : result;
  }
}

/** Times compare as stored text: the query's time in the same form. */
function iso(time: string | undefined): string | undefined {
  return time === undefined ? undefined : new Date(time).toISOString();
}

function toView(event: AuditEvent): AuditEventDto {
  return {
    id: event.seq,
    at: event.at,
    operator: { id: event.operatorId, name: event.operatorName },
    action: event.action,
    target: event.target,
    outcome: event.outcome,
    requestId: event.requestId,
    changes: event.changes,
    prevHash: event.prevHash,
    hash: event.hash,
  };
}
