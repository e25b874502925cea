import { Controller, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Endpoint } from '../common/http/endpoint.decorator.js';

@ApiTags('Health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
  ) {}

  @Get('live')
  @Endpoint({
    operationId: 'getLiveness',
    summary: 'Liveness: the process answers',
    access: 'public',
    responses: [{ status: 200, schema: { example: { status: 'ok' } } }],
  })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @HealthCheck()
  @Endpoint({
    operationId: 'getReadiness',
    summary: 'Readiness: the database answers',
    access: 'public',
    responses: [
      { status: 200, schema: { example: { status: 'ok', info: { database: { status: 'up' } } } } },
    ],
  })
  ready() {
    return this.health.check([() => this.database.pingCheck('database', { timeout: 2000 })]);
  }
}
