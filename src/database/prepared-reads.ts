import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { PreparedStatements, preparedStatementsFor } from './dialect.js';

/**
 * The reads on the hot path (a session by key, a key by hash, the catalog revision) as prepared
 * statements of the database in use. Feature repositories hold the SQL.
 */
@Injectable()
export class PreparedReads implements OnApplicationShutdown {
  private statements?: PreparedStatements;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The first row of the query, or undefined. */
  first<T>(sql: string, parameters: unknown[]): Promise<T | undefined> {
    this.statements ??= preparedStatementsFor(this.dataSource);
    return this.statements.first<T>(sql, parameters);
  }

  /** Before the data source closes (TypeORM closes it in its own shutdown hook, after this). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.statements?.close();
  }

  onApplicationShutdown(): void {
    this.statements = undefined;
  }
}
