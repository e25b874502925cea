import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { ApiError } from '../common/errors/api-error.js';
import { Endpoint } from '../http/endpoint.decorator.js';
import { ServiceState } from '../common/service-state.js';
import { WriteProbe } from '../database/write-probe.js';

/**
 * How long readiness waits for the database's answer: a database that stops answering makes it a
 * 503 within 2 s (no hang), with time to spare for the answer itself.
 */
const READY_PING_TIMEOUT_MS = 1500;

/** The checks of a readiness answer, by name (`database`). */
const INDICATORS = {
  type: 'object',
  additionalProperties: {
    type: 'object',
    required: ['status'],
    properties: {
      status: { type: 'string', enum: ['up', 'down'] },
      responseTime: { type: 'number', description: 'Milliseconds the check took.' },
    },
  },
};

/** Set on every readiness answer: a cached "ready" would hide an instance going down. */
const NO_CACHE_HEADER = {
  description: 'Readiness answers are never cached.',
  required: true,
  schema: { type: 'string', enum: ['no-cache, no-store, must-revalidate'] },
};

@ApiTags('Health')
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly state: ServiceState,
    private readonly writes: WriteProbe,
  ) {}

  @Endpoint({
    method: 'GET',
    path: 'health/live',
    operationId: 'getLiveness',
    summary: 'Liveness: the process answers',
    description: 'Never limited and never touches the database.',
    access: 'public',
    responses: [
      {
        status: 200,
        description: 'The process is up.',
        schema: {
          type: 'object',
          required: ['status'],
          properties: { status: { type: 'string', enum: ['ok'] } },
          example: { status: 'ok' },
        },
      },
    ],
  })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  // Documented by @Endpoint like every route, not by the library (whose 503 is not what is sent).
  @HealthCheck({ noCache: true, swaggerDocumentation: false })
  @Endpoint({
    method: 'GET',
    path: 'health/ready',
    operationId: 'getReadiness',
    summary: 'Readiness: the database answers',
    description:
      'Pings the database (2 s at most). 503 while it does not answer, while it refuses writes ' +
      '(full, read only, failing: checked again with a one-row write), while the database file ' +
      'is gone, and as soon as the instance starts shutting down. Never limited.',
    access: 'public',
    responses: [
      {
        status: 200,
        description: 'Ready: the database answered.',
        headers: { 'Cache-Control': NO_CACHE_HEADER },
        schema: {
          type: 'object',
          required: ['status', 'info', 'error', 'details'],
          properties: {
            status: { type: 'string', enum: ['ok'] },
            info: INDICATORS,
            error: INDICATORS,
            details: INDICATORS,
          },
          example: {
            status: 'ok',
            info: { database: { status: 'up', responseTime: 5 } },
            error: {},
            details: { database: { status: 'up', responseTime: 5 } },
          },
        },
      },
    ],
    errors: ['SERVICE_UNAVAILABLE'],
  })
  async ready() {
    if (this.state.draining || this.state.databaseLost) {
      throw new ApiError('SERVICE_UNAVAILABLE', {
        message: this.state.draining
          ? 'This instance is shutting down.'
          : 'The database file is gone; this instance cannot serve until it is restarted.',
      });
    }
    if (!(await this.writes.writable())) {
      throw new ApiError('SERVICE_UNAVAILABLE', {
        message: 'The database refuses writes (full, read only or failing); retry later.',
      });
    }
    return this.health.check([
      () => this.database.pingCheck('database', { timeout: READY_PING_TIMEOUT_MS }),
    ]);
  }
}
