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
    return this.prepared.first<T>(sql, parameters);
  }

  /**
   * The rows of `select` (a statement without WHERE) whose `column` is one of the keys, in one
   * statement.
   */
  byKeys<T>(select: string, column: string, keys: readonly string[]): Promise<T[]> {
    const prepared = this.prepared;
    return prepared.all<T>(`${select} WHERE ${prepared.inKeys(column)}`, [
      prepared.keysParameter(keys),
    ]);
  }

  /** Reads worth running at once on the database in use (see BatchedReads). */
  get concurrency(): number {
    return this.prepared.concurrency;
  }

  private get prepared(): PreparedStatements {
    this.statements ??= preparedStatementsFor(this.dataSource);
    return this.statements;
  }

  /** Before the data source closes (TypeORM closes it in its own shutdown hook, after this). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.statements?.close();
  }

  onApplicationShutdown(): void {
    this.statements = undefined;
  }
}
