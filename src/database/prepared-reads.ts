import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Database, Statement } from 'sqlite3';
import { DataSource } from 'typeorm';

/**
 * Reads on the hot path, as prepared statements on SQLite's connection: building each query
 * through TypeORM costs several times the query itself. Feature repositories hold the SQL
 * (written with `?` placeholders); other databases get it through TypeORM's query runner.
 */
@Injectable()
export class PreparedReads implements OnModuleDestroy {
  private readonly statements = new Map<string, Statement>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The first row of the query, or undefined. */
  first<T>(sql: string, parameters: unknown[]): Promise<T | undefined> {
    if (this.dataSource.options.type !== 'sqlite') {
      let position = 0;
      const portable = sql.replace(/\?/g, () => `$${++position}`);
      return this.dataSource.query(portable, parameters).then((rows: T[]) => rows[0]);
    }
    // `all` resets the statement first and steps it to the end, so no read snapshot stays open
    // between calls (`get` leaves the statement active, and a new commit by another process
    // would stay invisible to this connection).
    const statement = this.statement(sql);
    return new Promise((resolve, reject) =>
      statement.all(parameters, (error: Error | null, rows: T[]) =>
        error ? reject(error) : resolve(rows[0]),
      ),
    );
  }

  /** Finalizes every statement; the connection cannot close while one is open. */
  async onModuleDestroy(): Promise<void> {
    const statements = [...this.statements.values()];
    this.statements.clear();
    await Promise.all(
      statements.map(
        (statement) => new Promise<void>((resolve) => statement.finalize(() => resolve())),
      ),
    );
  }

  private statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      const connection = (this.dataSource.driver as unknown as { databaseConnection: Database })
        .databaseConnection;
      statement = connection.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
