import { Controller, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { ApiError } from '../common/errors/api-error.js';
import { Endpoint } from '../common/http/endpoint.decorator.js';
import { ServiceState } from '../common/service-state.js';

@ApiTags('Health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly state: ServiceState,
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
    if (this.state.draining || this.state.databaseLost) {
      throw new ApiError('SERVICE_UNAVAILABLE', {
        message: this.state.draining
          ? 'This instance is shutting down.'
          : 'The database file is gone; this instance cannot serve until it is restarted.',
      });
    }
    return this.health.check([() => this.database.pingCheck('database', { timeout: 2000 })]);
  }
}
