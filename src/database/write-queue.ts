import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

/**
 * Runs write transactions one after another within this process.
 *
 * TypeORM's SQLite driver shares one connection between all callers, so two transactions
 * started at once would silently nest into one. Queuing them keeps each transaction whole.
 * Correctness across processes does not rest on this queue: it comes from the database
 * (unique constraints, conditional updates on a version column, SQLite's file lock).
 */
@Injectable()
export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const result = this.tail.then(() => this.dataSource.transaction(work));
    this.tail = result.catch(() => undefined);
    return result;
  }
}
