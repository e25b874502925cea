import { Global, Module } from '@nestjs/common';
import { OperatorAuthenticator } from '../access/access-ports.js';
import { OperatorTokens } from './operator-authenticator.js';
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
    OperatorTokens,
    { provide: OperatorAuthenticator, useExisting: OperatorTokens },
    { provide: OperatorRepository, useClass: TypeOrmOperatorRepository },
  ],
  exports: [OperatorService, OperatorAuthenticator],
})
export class OperatorsModule {}
