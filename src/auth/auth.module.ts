import { Global, Module } from '@nestjs/common';
import { OperatorAuthenticator } from '../http/ports.js';
import { OperatorToken } from './operator-token.js';

/** Who may call the operator API: the bearer token ADMIN_TOKEN. */
@Global()
@Module({
  providers: [OperatorToken, { provide: OperatorAuthenticator, useExisting: OperatorToken }],
  exports: [OperatorAuthenticator],
})
export class AuthModule {}
