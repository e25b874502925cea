import { Global, Module } from '@nestjs/common';
import { OperatorTokens } from '../access/access-ports.js';
import { OperatorTokensService } from './operator-tokens.service.js';
import { OperatorRepository } from './operator.repository.js';
import { OperatorService } from './operator.service.js';
import { OperatorsController } from './operators.controller.js';
import { TypeOrmOperatorRepository } from './typeorm-operator.repository.js';

/** The operators of the operator API: their tokens, roles, and who a bearer token is. */
@Global()
@Module({
  controllers: [OperatorsController],
  providers: [
    OperatorService,
    OperatorTokensService,
    { provide: OperatorTokens, useExisting: OperatorTokensService },
    { provide: OperatorRepository, useClass: TypeOrmOperatorRepository },
  ],
  exports: [OperatorService, OperatorTokens],
})
export class OperatorsModule {}
