import { Controller, HttpCode } from '@nestjs/common';
import { ValidBody, ValidParams, ValidQuery } from '../common/validation.js';
import { ApiTags } from '@nestjs/swagger';
import { PageQueryDto } from '../common/http/page.dto.js';
import type { Listing } from '../common/http/envelope.js';
import { CurrentOperatorCall, type OperatorCall } from '../access/operator-call.js';
import { Endpoint } from '../http/endpoint.decorator.js';
import {
  CREATE_OPERATOR_EXAMPLES,
  CreateOperatorDto,
  CreatedOperatorDto,
  OperatorIdParams,
  OperatorPageDto,
  OperatorViewDto,
} from './dto/operator.dto.js';
import { OperatorService } from './operator.service.js';

@ApiTags('Operator: operators')
@Controller()
export class OperatorsController {
  constructor(private readonly operators: OperatorService) {}

  @Endpoint({
    method: 'POST',
    path: 'admin/operators',
    operationId: 'createOperator',
    summary: 'Give a person or program a token of its own, with a role',
    description:
      'The token is in this answer only; the service keeps its SHA-256. It works at once, with the ' +
      'power of its role.',
    access: 'operator',
    role: 'admin',
    requestBody: { type: CreateOperatorDto, examples: CREATE_OPERATOR_EXAMPLES },
    responses: [{ status: 201, type: CreatedOperatorDto, description: 'Created.' }],
    body: true,
    errors: ['INVALID_PARAMETER', 'CONFLICT'],
    errorNotes: { CONFLICT: 'A working operator has this name.' },
  })
  create(
    @ValidBody() input: CreateOperatorDto,
    @CurrentOperatorCall() call: OperatorCall,
  ): Promise<CreatedOperatorDto> {
    return this.operators.create(input, call);
  }

  @Endpoint({
    method: 'GET',
    path: 'admin/operators',
    operationId: 'listOperators',
    summary: 'Every operator, revoked ones included, oldest first',
    description: 'Each with its role and when its token was last used; never a token or its hash.',
    access: 'operator',
    role: 'viewer',
    envelope: { kind: 'list' },
    responses: [{ status: 200, type: OperatorPageDto }],
    errors: ['INVALID_PARAMETER'],
  })
  list(@ValidQuery() query: PageQueryDto): Promise<Listing<OperatorViewDto>> {
    return this.operators.list(query);
  }

  @HttpCode(204)
  @Endpoint({
    method: 'DELETE',
    path: 'admin/operators/:id',
    operationId: 'revokeOperator',
    summary: "Revoke an operator's token",
    description:
      'Refused at once by this instance, and within a second by every other. Revoking twice is a no-op.',
    access: 'operator',
    role: 'admin',
    responses: [{ status: 204, description: 'Revoked (also when it already was).' }],
    body: 'ignored',
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
    errorNotes: { NOT_FOUND: 'No operator has this id.' },
  })
  async revoke(
    @ValidParams() params: OperatorIdParams,
    @CurrentOperatorCall() call: OperatorCall,
  ): Promise<void> {
    await this.operators.revoke(params.id, call);
  }
}
